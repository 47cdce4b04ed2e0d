// Options of the CPU emulator that a caller may set (docs/emulator.md).
#pragma once

#include <string>

#include "support/error.h"

namespace tsr::cuda::emu {

// The watchdog limit when neither the caller nor TSR_EMU_TIMEOUT_S sets one:
// far above the slowest shipped spec's launch (a few seconds), far below a CI
// job's limit.
constexpr double kDefaultLaunchTimeoutS = 300;

struct EmulatorOptions {
  // Seconds one launch may run before the watchdog stops it; 0 means the
  // environment's TSR_EMU_TIMEOUT_S, or kDefaultLaunchTimeoutS without it.
  double launch_timeout_s = 0;
};

// The effective launch limit, or an error naming TSR_EMU_TIMEOUT_S when its
// value is not a positive number of seconds.
Expected<double> launch_timeout_s(const EmulatorOptions& options);

}  // namespace tsr::cuda::emu
