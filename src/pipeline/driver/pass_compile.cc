// The passes that make artifacts: identify, arbitrate, emit, compile.
#include <algorithm>
#include <mutex>
#include <thread>

#include "cache/compile_cache.h"
#include "compile/cached_compile.h"
#include "compile/compile.h"
#include "driver/pass_state.h"
#include "identity/identity.h"

namespace tsr {

void identify_pass(PassState& state) {
  for (JobState& s : state.states) {
    const Job& job = *s.job;
    s.row.kernel = job.spec->name;
    s.row.identity = kernel_identity(*job.spec);
    s.row.target = job.target;
    s.compiles = job.unsupported.empty() && !state.options.archive;
    if (s.compiles) s.toolchain = job.impl->toolchain();
  }
}

void arbitrate_pass(PassState& state) {
  const PassOptions& options = state.options;
  if (!options.tune || !options.run_oracle) return;
  for (JobState& s : state.states) {
    if (!s.compiles || !s.toolchain.found) continue;
    const PassClock::time_point start = PassClock::now();
    TuneOptions tune = *options.tune;
    tune.cache = options.cache;
    tune.progress = options.progress;
    tune.seed = options.seed;
    Expected<TuneOutcome> tuned = tune_kernel(*s.job->impl, *s.job->spec, s.job->target, tune);
    if (!tuned) {
      s.artifact = Expected<Artifact>(tuned.take_error());
      continue;
    }
    auto outcome = std::make_shared<TuneOutcome>(std::move(*tuned));
    s.row.tuning = outcome;
    if (!outcome->artifact) continue;   // nothing measured: the default compile ships
    s.artifact = Expected<Artifact>(*outcome->artifact);
    s.row.compile_ms = ms_since(start);
  }
}

void emit_pass(PassState& state) {
  for (JobState& s : state.states) {
    if (!s.compiles || s.artifact) continue;
    if (!s.toolchain.found) {
      s.artifact = Expected<Artifact>(toolchain_unavailable(s.job->target, s.toolchain));
      continue;
    }
    const PassClock::time_point start = PassClock::now();
    Expected<std::string> source = emit_for_target(*s.job->impl, *s.job->spec, s.job->target);
    s.row.compile_ms = ms_since(start);
    if (!source) {
      s.artifact = Expected<Artifact>(source.take_error());
      continue;
    }
    s.source = std::move(*source);
  }
}

namespace {

// The cache's artifact for `s`, when it holds one.
bool compile_cache_hit(JobState& s, const PassOptions& options) {
  if (!options.cache) return false;
  const PassClock::time_point start = PassClock::now();
  s.cache_key = compile_cache_key(s.row.identity, s.job->target, s.toolchain, s.source);
  std::optional<Artifact> hit = options.cache->find_artifact(s.cache_key);
  s.row.compile_ms += ms_since(start);
  if (!hit) return false;
  s.artifact = Expected<Artifact>(std::move(*hit));
  s.row.artifact_cached = true;
  if (options.progress)
    options.progress->detail("compile cache hit: " + s.job->target.str() + " " + s.job->spec->name + " (" +
                             s.cache_key.substr(0, 16) + ")");
  return true;
}

}  // namespace

void compile_pass(PassState& state) {
  const PassOptions& options = state.options;
  std::vector<JobState*> to_compile;
  for (JobState& s : state.states)
    if (s.compiles && !s.artifact && !compile_cache_hit(s, options)) to_compile.push_back(&s);

  std::mutex mutex;   // guards `next`, the progress sink and the results
  size_t next = 0;
  auto worker = [&]() {
    for (;;) {
      JobState* s;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next == to_compile.size()) return;
        s = to_compile[next++];
        if (options.progress)
          options.progress->step(next, to_compile.size(), "compile", s->job->target.str(), s->job->spec->name);
      }
      const PassClock::time_point start = PassClock::now();
      const Job& job = *s->job;
      Expected<Artifact> artifact = compile_emitted(*job.impl, *job.spec, job.target, s->toolchain, s->source);
      std::lock_guard<std::mutex> lock(mutex);
      s->row.compile_ms += ms_since(start);
      s->artifact = std::move(artifact);
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(to_compile.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();

  // Stored in job order, from this thread (the cache is not shared between threads).
  if (options.cache)
    for (JobState* s : to_compile)
      if (s->artifact->ok()) options.cache->store_artifact(s->cache_key, **s->artifact);
}

}  // namespace tsr
