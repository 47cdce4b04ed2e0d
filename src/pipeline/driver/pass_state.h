// What the passes of driver/passes.h share: one JobState per job, filled in
// pass by pass. Private to the driver's pass_*.cc files.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "driver/pass_options.h"
#include "driver/plan.h"
#include "driver/verdict_row.h"

namespace tsr {

struct JobState {
  const Job* job = nullptr;
  VerdictRow row;
  // Set by `identify` for a job with something to compile (supported, not
  // from an archive); the later compile passes skip the others.
  bool compiles = false;
  ToolchainInfo toolchain;
  std::string source;      // emitted; empty for a tuned artifact
  std::string cache_key;   // of `source`, with a compile cache
  // Set once a pass decides it: the arbiter's variant, a cache hit, a
  // compile, or the error of whichever step failed (check_abi may replace
  // an artifact with its error).
  std::optional<Expected<Artifact>> artifact;
};

struct PassState {
  const std::vector<Job>& jobs;
  const PassOptions& options;
  std::vector<JobState> states;   // one per job, same order
};

using PassClock = std::chrono::steady_clock;
inline double ms_since(PassClock::time_point start) {
  return std::chrono::duration<double, std::milli>(PassClock::now() - start).count();
}

// The passes, in the order passes.cc lists them.
void identify_pass(PassState& state);
void arbitrate_pass(PassState& state);
void emit_pass(PassState& state);
void compile_pass(PassState& state);
void check_abi_pass(PassState& state);
void qualify_pass(PassState& state);

}  // namespace tsr
