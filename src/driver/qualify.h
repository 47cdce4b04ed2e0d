// The `test` pipeline: for every planned job, compile and run the oracle on
// present hardware, collecting one verdict row each.
#pragma once

#include <string>
#include <vector>

#include "driver/plan.h"
#include "oracle/oracle.h"

struct tsr_archive;

namespace tsr {

struct VerdictRow {
  std::string kernel;
  std::string identity;
  TargetName target;
  OracleReport report;
  bool compile_failed = false;   // the toolchain rejected emitted code (exit 3)
  bool unavailable = false;      // the target's toolchain is missing on this machine
  std::optional<Artifact> artifact;
  // Who launched the artifact for the oracle: "libtesserart <stub route>"
  // (every target), "CPU emulator: clang ... (emulated)" for an emulated run, empty
  // when nothing was launched.
  std::string route;
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
};

std::vector<VerdictRow> qualify_jobs(const std::vector<Job>& jobs, const QualifyOptions& options);

std::string render_verdict_table(const std::vector<VerdictRow>& rows);
std::string render_verdict_json(const std::vector<VerdictRow>& rows);

}  // namespace tsr
