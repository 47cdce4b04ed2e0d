// The hip target's emitted HIP C++ run by the CPU emulator (docs/emulator.md,
// "HIP"): 64-lane wavefronts for gfx90a/gfx940, 32-lane for gfx1030/gfx1100,
// MFMA as one wavefront collective. Its passes are PASS_EMULATED, never PASS.
#pragma once

#include <memory>

#include "emulator/emulator_options.h"
#include "target/target.h"

namespace tsr::hip {

// A Target whose emitter is the hip emitter (hip_emit_kernels.h) and whose
// compile step is the emulator's (its modules launch through
// cuda::emu::EmulatorLauncher). `real`, when given (the hip
// target's make_emulated() passes itself), answers kind, archs, refusals,
// emission and the budget floor, so an emulated row is refused exactly as a
// device row would be; without it the emulated target answers them from the
// arch table and the emitter alone (the emulator's tests).
std::unique_ptr<Target> make_emulated_hip_target(std::unique_ptr<Target> real = nullptr);

}  // namespace tsr::hip
