// A launch whose result depends on when its cp.async copies land is wrong on
// some GPU run. A copy may land at any moment between its issue and its
// wait_group (PTX ISA 8.x, "cp.async"); racecheck sees every instrumented
// access to a copy in flight, and the two landing schedules catch what it does
// not see (accesses the instrumentation skips: atomics, memory intrinsics,
// non-escaping locals): the grid runs with copies landing late (at the wait),
// and, when it issued any copy, again from the same outputs with copies
// landing eager (at the issue); the outputs must agree bit for bit.
#pragma once

#include <string>
#include <vector>

#include "emulator/block_scheduler.h"

namespace tsr::cuda::emu {

// run_grid under both schedules. Returns the error report ("" when clean);
// the outputs are the late schedule's.
std::string run_grid_both_landings(const KernelModule& module, const LaunchShape& shape, void* const* args,
                                   const std::vector<GlobalBuffer>& buffers, const LaunchLimits& limits);

}  // namespace tsr::cuda::emu
