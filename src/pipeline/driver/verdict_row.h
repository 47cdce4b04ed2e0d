// What the passes learn of one job (driver/passes.h): its verdict, its
// artifact, and where the time went. Commands render, gate and assemble rows.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "arbiter/arbiter.h"
#include "oracle/oracle.h"
#include "target/target.h"

namespace tsr {

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
  DeviceInfo device;             // what the stub launched on, when it launched (a receipt records it)
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

}  // namespace tsr
