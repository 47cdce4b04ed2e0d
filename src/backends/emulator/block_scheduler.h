// Runs the threads of one launch on the CPU (CUDA C++ Programming Guide:
// thread hierarchy, __syncthreads, warp-synchronous collectives; PTX ISA
// "cp.async" groups). One fiber (fiber_switch.h) per GPU thread, blocks one after
// another, warps of LaunchShape::wave_size lanes (32 for CUDA; an AMD
// wavefront is 64 lanes on CDNA, 32 on RDNA). A fiber runs until it reaches a barrier
// or a warp collective; a collective completes when every lane its mask names
// has arrived at the same collective, a barrier when every thread of the
// block has. Anything else (divergence, a thread exiting while others wait)
// stops the launch with an error.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/emulator_abi.h"
#include "emulator/launch_memory.h"
#include "emulator/shared_symbols.h"
#include "emulator/warp_collectives.h"

namespace tsr::cuda::emu {

// What the loaded kernel module exposes (emulator_prelude.cc).
struct KernelModule {
  void (*entry)(void* const* args) = nullptr;
  tsr_emu_thread_regs** regs_slot = nullptr;
  const tsr_emu_api** api_slot = nullptr;
  uint8_t* shared_begin = nullptr;   // static __shared__ of the module
  uint8_t* shared_end = nullptr;
  std::vector<SharedSymbol> shared_symbols;   // names for reports (shared_symbols.h)
  bool bf16 = false;                 // mma operand type
};

struct LaunchShape {
  std::array<uint32_t, 3> grid{}, block{};
  uint32_t dynamic_shared_bytes = 0;   // cuda.shared_bytes
  int wave_size = kWarpSize;           // lanes per warp (32) or AMD wavefront (64 or 32)
};

// The watchdog: a launch still running after `timeout_s` seconds of wall time
// is stopped. It is checked cooperatively, at every memory access the module
// reports, every primitive and every switch back to the scheduler, so a loop
// that does none of these (pure register arithmetic) is not caught.
struct LaunchLimits {
  double timeout_s = 300;
};

// When a cp.async copy's bytes reach shared memory. A GPU may land a copy at
// any moment between its issue and the wait_group that completes it; the two
// extremes are emulated. Late: at the wait, so a read before it sees poison.
// Eager: at the issue, so a read of the old contents after it sees the copy.
enum class CopyLanding { late, eager };

struct GridRun {
  // The error report ("" when clean): at most kMaxReportedErrors lines and the total count.
  std::string errors;
  uint64_t copies = 0;   // cp.async copies issued
};

// Runs the whole grid.
constexpr size_t kMaxReportedErrors = 8;
GridRun run_grid(const KernelModule& module, const LaunchShape& shape, void* const* args,
                 const std::vector<GlobalBuffer>& buffers, const LaunchLimits& limits = {},
                 CopyLanding landing = CopyLanding::late);

}  // namespace tsr::cuda::emu
