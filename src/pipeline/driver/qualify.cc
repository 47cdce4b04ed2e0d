#include "driver/qualify.h"

#include "oracle/compare.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>
#include <nlohmann/json.hpp>

#include "archive/archive_reader.h"
#include "cache/compile_cache.h"
#include "compile/cached_compile.h"
#include "compile/compile.h"
#include "driver/emulated_oracle.h"
#include "driver/reason_notes.h"
#include "launch/stub_routed_target.h"
#include "tesserart.h"
#include "identity/identity.h"
#include "oracle/compare.h"
#include "support/sha256.h"
#include "registry/registry.h"

namespace tsr {

namespace {

// The archive's variant of `job` checked through the stub, or why it cannot be.
void qualify_from_archive(const Job& job, const Target& target, const QualifyOptions& options, VerdictRow& row) {
  size_t index = 0;
  tsr_kernel_info info{};
  if (tsr_archive_find_kernel(options.archive, job.spec->name.c_str(), &index) != TSR_OK ||
      tsr_archive_kernel_at(options.archive, index, &info) != TSR_OK) {
    row.report = not_run("archive has no kernel '" + job.spec->name + "'", *job.spec, options.seed);
    row.archive_miss = VerdictRow::ArchiveMiss::kernel;
    return;
  }
  if (row.identity != info.identity) {
    row.report = not_run("", *job.spec, options.seed);
    row.report.verdict = Verdict::fail;
    row.report.reason = "archive kernel identity " + std::string(info.identity).substr(0, 12) +
                        "… differs from the spec's " + row.identity.substr(0, 12) + "…";
    return;
  }
  size_t variant = info.variant_count;
  for (size_t v = 0; v < info.variant_count && variant == info.variant_count; ++v) {
    tsr_variant_info vi{};
    if (tsr_kernel_variant_at(options.archive, index, v, &vi) == TSR_OK && job.target.kind == vi.target_kind &&
        job.target.arch == vi.arch)
      variant = v;
  }
  if (variant == info.variant_count) {
    row.report = not_run("archive has no " + job.target.str() + " variant", *job.spec, options.seed);
    row.archive_miss = VerdictRow::ArchiveMiss::variant;
    return;
  }
  std::unique_ptr<StubRoutedTarget> routed = make_stub_routed_target(target, options.archive, job.target);
  // The variant's routes: the oracle runs each inside its own bucket, as the build's check did.
  Expected<std::map<std::string, std::string>> metadata = read_variant_metadata(options.archive, index, variant);
  if (!metadata) {
    row.report = not_run("", *job.spec, options.seed);
    row.report.verdict = Verdict::fail;
    row.report.reason = "cannot read the archive's " + job.target.str() + " variant: " + metadata.error().message();
    return;
  }
  Artifact placeholder;   // the stub takes the bytes from the archive
  placeholder.target = job.target;
  placeholder.metadata = std::move(*metadata);
  OracleOptions oracle_options;
  oracle_options.seed = options.seed;
  row.report = run_oracle(*job.spec, *routed, placeholder, oracle_options);
  row.route = routed->route();
}

// The oracle on a freshly compiled artifact, launched through libtesserart
// from a one-kernel archive in memory, whatever the kind: the bytes and the
// code path qualified are the ones users run (for GPUs, the copying
// tsr_kernel_launch on the device the target found).
void qualify_compiled(const Job& job, const Target& target, const Artifact& artifact, uint64_t seed, VerdictRow& row) {
  OracleOptions oracle_options;
  oracle_options.seed = seed;
  Expected<std::unique_ptr<StubRoutedTarget>> routed = make_in_memory_stub_target(target, *job.spec, artifact);
  if (!routed) {
    row.report = not_run("", *job.spec, seed);
    row.report.verdict = Verdict::fail;
    row.report.reason = "cannot open the artifact through libtesserart: " + routed.error().message();
    return;
  }
  row.report = run_oracle(*job.spec, **routed, artifact, oracle_options);
  row.route = (*routed)->route();
}

// Whether the job's oracle runs in the emulator: asked for, a target the
// emulator models (Target::make_emulated), and no device to run it on.
bool runs_emulated(const Job& job, const Target& target, const QualifyOptions& options) {
  return options.emulate && !target.device(job.target.arch).present && target.make_emulated() != nullptr;
}

}  // namespace

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One job's compile step: the emitted source and its cache key are worked
// out first (on the calling thread), the compile itself may run on a worker.
struct CompileStep {
  ToolchainInfo toolchain;
  std::string source;
  std::string cache_key;
  std::optional<Expected<Artifact>> result;   // unset: still to compile
};

// Emits every job's source, answers what the cache holds, and compiles the
// rest on `options.jobs` threads. Steps of jobs with nothing to compile
// (unsupported, archive) stay empty.
std::vector<std::optional<CompileStep>> compile_all(const std::vector<Job>& jobs, const QualifyOptions& options,
                                                    std::vector<VerdictRow>& rows) {
  std::vector<std::optional<CompileStep>> steps(jobs.size());
  std::vector<size_t> to_compile;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    if (!job.unsupported.empty() || options.archive) continue;
    const Clock::time_point start = Clock::now();
    CompileStep& step = steps[i].emplace();
    step.toolchain = job.impl->toolchain();
    if (options.tune && options.run_oracle && step.toolchain.found) {
      TuneOptions tune = *options.tune;
      tune.cache = options.cache;
      tune.progress = options.progress;
      tune.seed = options.seed;
      Expected<TuneOutcome> tuned = tune_kernel(*job.spec, job.target, tune);
      if (!tuned) {
        step.result = Expected<Artifact>(tuned.take_error());
        continue;
      }
      auto outcome = std::make_shared<TuneOutcome>(std::move(*tuned));
      rows[i].tuning = outcome;
      if (outcome->artifact) {
        step.result = Expected<Artifact>(*outcome->artifact);
        rows[i].compile_ms = ms_since(start);
        continue;
      }
    }
    if (!step.toolchain.found) {
      step.result = Expected<Artifact>(toolchain_unavailable(job.target, step.toolchain));
      continue;
    }
    Expected<std::string> source = emit_for_target(*job.spec, job.target);
    if (!source) {
      step.result = Expected<Artifact>(source.take_error());
      continue;
    }
    step.source = std::move(*source);
    if (options.cache) {
      step.cache_key = compile_cache_key(rows[i].identity, job.target, step.toolchain, step.source);
      if (std::optional<Artifact> hit = options.cache->find_artifact(step.cache_key)) {
        step.result = Expected<Artifact>(std::move(*hit));
        rows[i].artifact_cached = true;
        rows[i].compile_ms = ms_since(start);
        if (options.progress)
          options.progress->detail("compile cache hit: " + job.target.str() + " " + job.spec->name + " (" +
                                   step.cache_key.substr(0, 16) + ")");
        continue;
      }
    }
    rows[i].compile_ms = ms_since(start);
    to_compile.push_back(i);
  }

  std::mutex mutex;   // guards `next`, the progress sink and the steps' results
  size_t next = 0;
  auto worker = [&]() {
    for (;;) {
      size_t n;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next == to_compile.size()) return;
        n = next++;
        const Job& job = jobs[to_compile[n]];
        if (options.progress)
          options.progress->step(n + 1, to_compile.size(), "compile", job.target.str(), job.spec->name);
      }
      const size_t i = to_compile[n];
      CompileStep& step = *steps[i];
      const Clock::time_point start = Clock::now();
      Expected<Artifact> artifact = compile_emitted(*jobs[i].spec, jobs[i].target, step.toolchain, step.source);
      std::lock_guard<std::mutex> lock(mutex);
      rows[i].compile_ms += ms_since(start);
      step.result = std::move(artifact);
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(to_compile.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();

  // Stored in job order, from this thread (the cache is not shared between threads).
  if (options.cache)
    for (size_t i : to_compile)
      if (steps[i]->result->ok()) options.cache->store_artifact(steps[i]->cache_key, **steps[i]->result);
  return steps;
}

// The oracle on the compiled artifact, or the compile cache's record of
// the same pass: same program, artifact, device, seed and TSR_*/TESSERAC_*
// environment (docs/cache.md).
void qualify_compiled_cached(const Job& job, const Target& target, const Artifact& artifact,
                             const QualifyOptions& options, VerdictRow& row) {
  std::string key;
  if (options.cache) {
    key = verdict_cache_key(artifact.key, row.artifact_sha256,
                            target.device(job.target.arch), options.seed, false);
    if (std::optional<CachedVerdict> hit = options.cache->find_verdict(key)) {
      row.report = hit->report;
      row.route = hit->route;
      row.verdict_cached = true;
      return;
    }
  }
  qualify_compiled(job, target, artifact, options.seed, row);
  if (options.cache) options.cache->store_verdict(key, {row.report, row.route});
}

bool is_unavailable(const Error& error) { return error.kind() == ErrorKind::unavailable; }

// Whether job i's oracle runs in the emulator: a compiled artifact, or (for
// `test`: the emulator needs only the emitted source and clang, not the GPU
// toolchain) a target whose toolchain is missing. A build (keep_artifacts)
// records verdicts of what it ships only.
bool oracle_runs_emulated(const Job& job, const std::optional<CompileStep>& step, const QualifyOptions& options) {
  if (!step || !options.run_oracle || !runs_emulated(job, *job.impl, options)) return false;
  const Expected<Artifact>& artifact = *step->result;
  return artifact.ok() || (is_unavailable(artifact.error()) && !options.keep_artifacts);
}

}  // namespace

std::vector<VerdictRow> qualify_jobs(const std::vector<Job>& jobs, const QualifyOptions& options) {
  std::vector<VerdictRow> rows(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    rows[i].kernel = jobs[i].spec->name;
    rows[i].identity = kernel_identity(*jobs[i].spec);
    rows[i].target = jobs[i].target;
  }
  std::vector<std::optional<CompileStep>> steps = compile_all(jobs, options, rows);
  // "[n/N] oracle" lines only for the jobs whose oracle can launch something
  // here (a device, or the emulator): the others are NOT_RUN at once.
  std::vector<size_t> oracle_step(jobs.size(), 0);
  size_t oracle_steps = 0;
  for (size_t i = 0; i < jobs.size() && (options.run_oracle || options.archive); ++i) {
    const Target* target = jobs[i].unsupported.empty() ? jobs[i].impl : nullptr;
    if (target && (target->device(jobs[i].target.arch).present || runs_emulated(jobs[i], *target, options)))
      oracle_step[i] = ++oracle_steps;
  }
  // Every emulated job is known before the first runs, so each group of
  // byte-identical sources is emulated for the same target in every run.
  EmulatedOracle emulated(jobs, options);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!oracle_runs_emulated(jobs[i], steps[i], options)) continue;
    const bool compiled = steps[i]->result->ok();
    // A tuned artifact leaves no source here; the emulator runs the emitted one.
    emulated.add(i, rows[i].identity,
                 compiled && !steps[i]->source.empty()
                     ? Expected<std::string>(steps[i]->source)
                     : jobs[i].impl->emit(*jobs[i].spec, jobs[i].target.arch),
                 compiled);
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    VerdictRow& row = rows[i];
    if (!job.unsupported.empty()) {
      row.unsupported = true;
      row.report = not_run("target does not support this kernel: " + job.unsupported, *job.spec, options.seed);
      continue;
    }
    const Target* target = job.impl;
    if (options.progress && oracle_step[i])
      options.progress->step(oracle_step[i], oracle_steps, "oracle", job.target.str(), job.spec->name);
    const Clock::time_point start = Clock::now();
    if (options.archive) {
      qualify_from_archive(job, *target, options, row);
      row.oracle_ms = ms_since(start);
      continue;
    }
    Expected<Artifact>& artifact = *steps[i]->result;
    if (!artifact) {
      const bool unavailable = is_unavailable(artifact.error());
      row.compile_failed = !unavailable;
      row.input_error = artifact.error().kind() == ErrorKind::invalid_input;
      row.unavailable = unavailable;
      if (!unavailable) {
        row.error = artifact.error().message();
        if (options.progress) options.progress->finish();   // a progress line on a terminal goes first
        std::cerr << "tesserac: error: " << row.error << "\n";
      }
      row.report = not_run(unavailable ? artifact.error().message() : "compile failed (see error above)", *job.spec,
                           options.seed);
      if (emulated.covers(i)) emulated.qualify(i, row);
      row.oracle_ms = ms_since(start);
      continue;
    }
    // Once per row: the report shows it and the verdict cache keys on it.
    row.artifact_sha256 = sha256_hex(artifact->bytes.data(), artifact->bytes.size());
    row.artifact_key = artifact->key;
    if (emulated.covers(i)) {
      emulated.qualify(i, row);
    } else if (options.run_oracle) {
      qualify_compiled_cached(job, *target, *artifact, options, row);
    } else {
      row.report = not_run("skipped by request (--no-oracle)", *job.spec, options.seed);
    }
    row.oracle_ms = ms_since(start);
    if (options.keep_artifacts) row.artifact = std::move(*artifact);
  }
  if (options.progress) options.progress->finish();
  return rows;
}

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

std::string render_verdict_table(const std::vector<VerdictRow>& rows, bool group_not_run) {
  size_t kw = 6, tw = 6, vw = 7;
  for (const VerdictRow& r : rows) {
    kw = std::max(kw, r.kernel.size());
    tw = std::max(tw, r.target.str().size());
    vw = std::max(vw, std::string(verdict_name(r.report.verdict)).size());
  }
  char line[1024];
  std::string out;
  std::snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-9s  %-9s  %-17s  %s\n", static_cast<int>(kw), "KERNEL",
                static_cast<int>(tw), "TARGET", static_cast<int>(vw), "VERDICT", "MAX_ABS", "MAX_REL",
                "BUDGET atol/rtol", "DETAIL");
  out += line;
  // An emulated rerun runs the same emulator over the same source: it
  // cannot differ, so it is not shown as a determinism check.
  auto detail_of = [](const OracleReport& rep) {
    const bool passed = rep.verdict == Verdict::pass || rep.verdict == Verdict::pass_emulated;
    const bool emulated = rep.verdict == Verdict::pass_emulated;
    const std::string rerun = !rep.determinism_checked ? "" : emulated ? " rerun=n/a(emulated)" : " rerun=bit-identical";
    std::string detail = passed ? "seed=" + std::to_string(rep.seed) + " trials=" + std::to_string(rep.trials) + rerun +
                                      " budget_use=" + num(rep.budget_use) +
                                      (rep.absolute_term_decided ? "(atol)" : "(rtol)")
                                : rep.reason;
    if (emulated) detail += " (" + rep.reason + ")";
    return detail;
  };
  std::vector<std::string> details;
  for (const VerdictRow& r : rows) details.push_back(detail_of(r.report));
  ReasonNotes notes(details);
  std::vector<std::pair<std::string, std::vector<const VerdictRow*>>> not_run;   // by reason, first-seen order
  for (size_t i = 0; i < rows.size(); ++i) {
    const VerdictRow& r = rows[i];
    const OracleReport& rep = r.report;
    const bool ran = rep.verdict != Verdict::not_run;
    if (!ran && group_not_run) {
      auto group = std::find_if(not_run.begin(), not_run.end(), [&](const auto& g) { return g.first == rep.reason; });
      if (group == not_run.end()) group = not_run.insert(not_run.end(), {rep.reason, {}});
      group->second.push_back(&r);
      continue;
    }
    const std::string detail = notes.shorten(details[i]);
    std::snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-9s  %-9s  %-17s  %s\n", static_cast<int>(kw),
                  r.kernel.c_str(), static_cast<int>(tw), r.target.str().c_str(), static_cast<int>(vw),
                  verdict_name(rep.verdict),
                  ran ? num(rep.max_abs_err).c_str() : "-", ran ? num(rep.max_rel_err).c_str() : "-",
                  (num(rep.budget.atol) + "/" + num(rep.budget.rtol)).c_str(), detail.c_str());
    out += line;
  }
  for (const auto& [reason, group] : not_run) {
    std::vector<std::string> targets;   // distinct, first-seen order
    for (const VerdictRow* r : group)
      if (std::find(targets.begin(), targets.end(), r->target.str()) == targets.end()) targets.push_back(r->target.str());
    std::string names;
    for (const std::string& t : targets) names += (names.empty() ? "" : ", ") + t;
    out += "not run: " + notes.shorten(reason) + ": " + std::to_string(group.size()) + " variant(s) on " + names + "\n";
  }
  out += notes.render();
  // Emulated passes are counted apart from hardware passes, and only named
  // when there are some, so a run without --emulate reads as it always has.
  const VerdictCounts c = count_verdicts(rows);
  out += std::to_string(c.passed) + " passed, " +
         (c.passed_emulated ? std::to_string(c.passed_emulated) + " passed emulated (not hardware), " : std::string()) +
         std::to_string(c.failed) + " failed, " + std::to_string(c.not_run) + " not run\n";
  return out;
}

VerdictCounts count_verdicts(const std::vector<VerdictRow>& rows) {
  VerdictCounts c;
  for (const VerdictRow& r : rows) {
    c.passed += r.report.verdict == Verdict::pass;
    c.passed_emulated += r.report.verdict == Verdict::pass_emulated;
    c.failed += r.report.verdict == Verdict::fail;
    c.not_run += r.report.verdict == Verdict::not_run;
    c.compile_failed += r.compile_failed;
  }
  return c;
}

std::string render_verdict_json(const std::vector<VerdictRow>& rows) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const VerdictRow& r : rows) {
    nlohmann::ordered_json j;
    j["kernel"] = r.kernel;
    j["identity"] = r.identity;
    j["target"] = r.target.str();
    j["verdict"] = verdict_name(r.report.verdict);
    j["max_abs_err"] = r.report.max_abs_err;
    j["max_rel_err"] = r.report.max_rel_err;
    j["budget_atol"] = r.report.budget.atol;
    j["budget_rtol"] = r.report.budget.rtol;
    j["rel_threshold"] = relative_threshold(r.report.budget);   // max_rel_err counts |ref| at or above it
    j["budget_use"] = r.report.budget_use;
    j["budget_term"] = r.report.absolute_term_decided ? "atol" : "rtol";
    j["seed"] = r.report.seed;
    j["trials"] = r.report.trials;
    j["determinism_checked"] = r.report.determinism_checked;
    j["reason"] = r.report.reason;
    j["route"] = r.route;
    results.push_back(j);
  }
  nlohmann::ordered_json doc;
  doc["results"] = results;
  return doc.dump(2) + "\n";
}

}  // namespace tsr
