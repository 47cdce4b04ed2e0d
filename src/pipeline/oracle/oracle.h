// The oracle differential test (DESIGN.md §4): run a compiled kernel on a
// present device against the reference over several seeded distributions,
// check bit-identical reruns for deterministic kernels, and return a verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "oracle/budget.h"
#include "oracle/route_trials.h"
#include "target/launcher.h"

namespace tsr {

// pass_emulated: every trial passed on a runner that emulates the device
// (DeviceInfo::emulated, docs/emulator.md); never a hardware PASS.
enum class Verdict { pass, fail, not_run, pass_emulated };
const char* verdict_name(Verdict v);   // PASS, FAIL, NOT_RUN, PASS_EMULATED

// Every emulated verdict (PASS_EMULATED and an emulated FAIL) carries
// kEmulatedReason (target/target.h) as its reason.

struct OracleReport {
  Verdict verdict = Verdict::not_run;
  std::string reason;        // NOT_RUN: why; FAIL: trial, index, values
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;      // where |ref| >= relative_threshold(budget) (compare.h)
  double budget_use = 0.0;       // worst |out - ref| / (atol + rtol |ref|); 1 = the edge
  bool absolute_term_decided = true;   // which budget term was larger at that element
  Budget budget;
  uint64_t seed = 0;
  int trials = 0;
  std::vector<std::map<std::string, int64_t>> trial_shapes;   // the runtime scalars of each trial run, in order
  bool determinism_checked = false;
  // After a pass, with OracleOptions::timed_launches: the median wall time
  // of that many launches of the largest trial (receipts record it).
  double median_latency_ns = 0.0;
  int timed_launches = 0;
};

struct OracleOptions {
  uint64_t seed = 0x7e55e7ac;   // printed and stored with every verdict
  // Launches of the largest trial timed after a pass (0: none), for receipts.
  int timed_launches = 0;
  // Trials run after the standard ones (the arbiter's bucket shapes). A
  // variant whose metadata declares routes adds its own route trials too.
  std::vector<ShapeTrial> extra_trials;
  // Test hook: corrupts the launch outputs after the kernel ran (mutation tests).
  std::function<void(LaunchArgs&)> corrupt_outputs;
};

// Bytes of canary on each side of every buffer of a trial: a kernel that
// writes before or after a buffer changes them and fails the trial.
constexpr size_t kGuardBytes = 256;

// The most memory one oracle trial may hold (buffers, their values as
// doubles, the reference); a spec whose static extents need more gets
// NOT_RUN with the reason instead of an allocation failure.
constexpr double kOracleMemoryBudgetBytes = 4.0 * (1ull << 30);

// Peak bytes the largest trial of `spec` holds (estimated from its buffers).
double oracle_trial_bytes(const KernelSpec& spec);

// The oracle on `artifact`, every launch through `launcher` (the stub's on
// hardware, the emulator's for PASS_EMULATED).
OracleReport run_oracle(const KernelSpec& spec, const Launcher& launcher, const Artifact& artifact,
                        const OracleOptions& options = {});

// A report for a target that could not run (no device, no toolchain, ...).
OracleReport not_run(std::string reason, const KernelSpec& spec, uint64_t seed);

}  // namespace tsr
