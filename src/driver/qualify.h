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
  // (every target), empty when nothing was launched.
  std::string route;
};

struct QualifyOptions {
  // When set, artifacts come from this archive and launch through the
  // runtime stub instead of being compiled (tesserac test --archive).
  struct tsr_archive* archive = nullptr;
  uint64_t seed = OracleOptions{}.seed;
  bool run_oracle = true;        // false: record NOT_RUN (skipped by request)
  bool keep_artifacts = false;
};

std::vector<VerdictRow> qualify_jobs(const std::vector<Job>& jobs, const QualifyOptions& options);

std::string render_verdict_table(const std::vector<VerdictRow>& rows);
std::string render_verdict_json(const std::vector<VerdictRow>& rows);

}  // namespace tsr
