// The `test` pipeline: for every planned job, compile and run the oracle on
// present hardware, collecting one verdict row each.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arbiter/arbiter.h"
#include "progress/build_progress.h"
#include "driver/plan.h"
#include "oracle/oracle.h"

struct tsr_archive;

namespace tsr {

class CompileCache;

struct VerdictRow {
  std::string kernel;
  std::string identity;
  TargetName target;
  OracleReport report;
  bool compile_failed = false;   // the toolchain rejected emitted code (exit 3)
  bool input_error = false;      // ... because of a bad input the compile step read (exit 1), e.g. a sidecar
  bool unavailable = false;      // the target's toolchain is missing on this machine
  bool unsupported = false;      // the target cannot build this kernel (NOT_RUN, nothing compiled)
  // test --archive: what the archive lacks for this row (NOT_RUN, nothing launched).
  enum class ArchiveMiss { none, kernel, variant } archive_miss = ArchiveMiss::none;
  std::optional<Artifact> artifact;
  // Who launched the artifact for the oracle: "libtesserart <stub route>"
  // (every target), "CPU emulator: clang ... (emulated)" for an emulated run, empty
  // when nothing was launched.
  std::string route;
  std::string error;             // the compile error, when compile_failed
  std::string artifact_sha256;   // of the artifact's bytes, when it compiled
  std::string artifact_key;      // Artifact::key, when it compiled
  // For reports (docs/reports.md): where the time went and what the cache gave.
  double compile_ms = 0.0;       // emit + compile (or the cache lookup)
  double oracle_ms = 0.0;
  bool artifact_cached = false;  // the artifact came from the compile cache
  bool verdict_cached = false;   // the oracle's pass came from the compile cache
  // build --tune / tune: the arbiter's result for this job (docs/arbiter.md);
  // when it measured, `artifact` is its tuned variant.
  std::shared_ptr<const TuneOutcome> tuning;
};

struct QualifyOptions {
  // When set, artifacts come from this archive and launch through the
  // runtime stub instead of being compiled (tesserac test --archive).
  struct tsr_archive* archive = nullptr;
  uint64_t seed = OracleOptions{}.seed;
  bool run_oracle = true;        // false: record NOT_RUN (skipped by request)
  bool keep_artifacts = false;
  // GPU targets whose device is absent run the oracle on the CPU emulator
  // (docs/emulator.md) over the same emitted source the artifact was compiled
  // from: PASS_EMULATED or FAIL. A present device still runs on hardware.
  bool emulate = false;
  // Compiled artifacts and oracle passes are looked up here first and stored
  // after (docs/cache.md); null: no cache.
  CompileCache* cache = nullptr;
  // Compiles run on this many threads; the oracle runs one job at a time, in
  // job order. Rows, messages and outputs are the same for any value.
  unsigned jobs = 1;
  BuildProgress* progress = nullptr;
  // Set: every job goes through the arbiter first (build --tune, tune); a
  // job it measured gets the tuned variant instead of the default compile.
  const TuneOptions* tune = nullptr;
};

std::vector<VerdictRow> qualify_jobs(const std::vector<Job>& jobs, const QualifyOptions& options);

// One row per kernel x target, long reason tails shared by several rows as
// notes under the table, then the counts. With `group_not_run`, NOT_RUN rows
// are one line per reason instead ("not run: REASON: N variant(s): T1, T2"),
// for qualify, where most variants have no device on the host.
std::string render_verdict_table(const std::vector<VerdictRow>& rows, bool group_not_run = false);

struct VerdictCounts {
  int passed = 0, passed_emulated = 0, failed = 0, not_run = 0, compile_failed = 0;
};
VerdictCounts count_verdicts(const std::vector<VerdictRow>& rows);
std::string render_verdict_json(const std::vector<VerdictRow>& rows);

}  // namespace tsr
