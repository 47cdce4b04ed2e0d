// The qualify pass: the oracle on every job's artifact, through libtesserart
// on present hardware (or the archive's variant, test --archive), in the CPU
// emulator (--emulate), or NOT_RUN with the reason.
#include <iostream>

#include "archive/archive_reader.h"
#include "cache/compile_cache.h"
#include "driver/emulated_oracle.h"
#include "driver/pass_state.h"
#include "launch/stub_launcher.h"
#include "support/sha256.h"
#include "tesserart.h"

namespace tsr {

namespace {

// The archive's variant of `job` checked through the stub, or why it cannot be.
void qualify_from_archive(const Job& job, const PassOptions& options, VerdictRow& row) {
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
  std::unique_ptr<StubLauncher> routed = make_stub_launcher(*job.impl, options.archive, job.target);
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
  oracle_options.timed_launches = options.timed_launches;
  row.report = run_oracle(*job.spec, *routed, placeholder, oracle_options);
  row.route = routed->route();
  row.device = routed->device(job.target.arch);
}

// The oracle on a freshly compiled artifact, launched through libtesserart
// from a one-kernel archive in memory, whatever the kind: the bytes and the
// code path qualified are the ones users run (for GPUs, the copying
// tsr_kernel_launch on the device the target found).
void qualify_compiled(const Job& job, const Artifact& artifact, const PassOptions& options, VerdictRow& row) {
  const uint64_t seed = options.seed;
  OracleOptions oracle_options;
  oracle_options.seed = seed;
  oracle_options.timed_launches = options.timed_launches;
  Expected<std::unique_ptr<StubLauncher>> routed = make_in_memory_stub_launcher(*job.impl, *job.spec, artifact);
  if (!routed) {
    row.report = not_run("", *job.spec, seed);
    row.report.verdict = Verdict::fail;
    row.report.reason = "cannot open the artifact through libtesserart: " + routed.error().message();
    return;
  }
  row.report = run_oracle(*job.spec, **routed, artifact, oracle_options);
  row.route = (*routed)->route();
  row.device = (*routed)->device(job.target.arch);
}

// The oracle on the compiled artifact, or the compile cache's record of
// the same pass: same program, artifact, device, seed and TSR_*/TESSERAC_*
// environment (docs/cache.md). Timed launches are never cached: a
// receipt's latency is measured by the run that writes it.
void qualify_compiled_cached(const Job& job, const Artifact& artifact, const PassOptions& options, VerdictRow& row) {
  CompileCache* cache = options.timed_launches == 0 ? options.cache : nullptr;
  std::string key;
  if (cache) {
    const DeviceInfo device = job.impl->device(job.target.arch);
    key = verdict_cache_key(artifact.key, row.artifact_sha256, device, options.seed, false);
    if (std::optional<CachedVerdict> hit = cache->find_verdict(key)) {
      row.report = hit->report;
      row.route = hit->route;
      row.device = device;
      row.verdict_cached = true;
      return;
    }
  }
  qualify_compiled(job, artifact, options, row);
  if (cache) cache->store_verdict(key, {row.report, row.route});
}

// Whether the job's oracle runs in the emulator: asked for, a target the
// emulator models (Target::make_emulated), and no device to run it on.
bool runs_emulated(const Job& job, const PassOptions& options) {
  return options.emulate && !job.impl->device(job.target.arch).present && job.impl->make_emulated() != nullptr;
}

bool is_unavailable(const Error& error) { return error.kind() == ErrorKind::unavailable; }

// Whether the job's oracle runs in the emulator: a compiled artifact, or (for
// `test`: the emulator needs only the emitted source and clang, not the GPU
// toolchain) a target whose toolchain is missing. A build (keep_artifacts)
// records verdicts of what it ships only.
bool oracle_runs_emulated(const JobState& s, const PassOptions& options) {
  if (!s.compiles || !options.run_oracle || !runs_emulated(*s.job, options)) return false;
  const Expected<Artifact>& artifact = *s.artifact;
  return artifact.ok() || (is_unavailable(artifact.error()) && !options.keep_artifacts);
}

// A job whose artifact is an error: NOT_RUN, the error printed unless it is
// an unavailable toolchain (the emulator may still give a verdict).
void record_compile_error(const JobState& s, const PassOptions& options, VerdictRow& row) {
  const Error& error = s.artifact->error();
  const bool unavailable = is_unavailable(error);
  row.compile_failed = !unavailable;
  row.input_error = error.kind() == ErrorKind::invalid_input;
  row.unavailable = unavailable;
  if (!unavailable) {
    row.error = error.message();
    if (options.progress) options.progress->finish();   // a progress line on a terminal goes first
    std::cerr << "tesserac: error: " << row.error << "\n";
  }
  row.report = not_run(unavailable ? error.message() : "compile failed (see error above)", *s.job->spec, options.seed);
}

}  // namespace

void qualify_pass(PassState& state) {
  const PassOptions& options = state.options;
  std::vector<JobState>& states = state.states;
  // "[n/N] oracle" lines only for the jobs whose oracle can launch something
  // here (a device, or the emulator): the others are NOT_RUN at once.
  std::vector<size_t> oracle_step(states.size(), 0);
  size_t oracle_steps = 0;
  for (size_t i = 0; i < states.size() && (options.run_oracle || options.archive); ++i) {
    const Job& job = *states[i].job;
    if (job.unsupported.empty() && (job.impl->device(job.target.arch).present || runs_emulated(job, options)))
      oracle_step[i] = ++oracle_steps;
  }
  // Every emulated job is known before the first runs, so each group of
  // byte-identical sources is emulated for the same target in every run.
  EmulatedOracle emulated(state.jobs, options);
  for (size_t i = 0; i < states.size(); ++i) {
    const JobState& s = states[i];
    if (!oracle_runs_emulated(s, options)) continue;
    const bool compiled = s.artifact->ok();
    // A tuned artifact leaves no source here; the emulator runs the emitted one.
    emulated.add(i, s.row.identity,
                 compiled && !s.source.empty() ? Expected<std::string>(s.source)
                                               : s.job->impl->emit(*s.job->spec, s.job->target.arch),
                 compiled);
  }
  for (size_t i = 0; i < states.size(); ++i) {
    JobState& s = states[i];
    const Job& job = *s.job;
    VerdictRow& row = s.row;
    if (!job.unsupported.empty()) {
      row.unsupported = true;
      row.report = not_run("target does not support this kernel: " + job.unsupported, *job.spec, options.seed);
      continue;
    }
    if (options.progress && oracle_step[i])
      options.progress->step(oracle_step[i], oracle_steps, "oracle", job.target.str(), job.spec->name);
    const PassClock::time_point start = PassClock::now();
    if (options.archive) {
      qualify_from_archive(job, options, row);
    } else if (!s.artifact->ok()) {
      record_compile_error(s, options, row);
      if (emulated.covers(i)) emulated.qualify(i, row);
    } else {
      const Artifact& artifact = **s.artifact;
      // Once per row: the report shows it and the verdict cache keys on it.
      row.artifact_sha256 = sha256_hex(artifact.bytes.data(), artifact.bytes.size());
      row.artifact_key = artifact.key;
      if (emulated.covers(i)) {
        emulated.qualify(i, row);
      } else if (options.run_oracle) {
        qualify_compiled_cached(job, artifact, options, row);
      } else {
        row.report = not_run("skipped by request (--no-oracle)", *job.spec, options.seed);
      }
      if (options.keep_artifacts) row.artifact = std::move(**s.artifact);
    }
    row.oracle_ms = ms_since(start);
  }
  if (options.progress) options.progress->finish();
}

}  // namespace tsr
