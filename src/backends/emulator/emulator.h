// The CPU emulator for the cuda target's generated source
// (docs/emulator.md): the emitted CUDA C++ is built as host C++ against the
// emulation prelude and launched with one fiber per GPU thread. The results
// are semantics, not hardware: an emulated pass is never a hardware PASS.
#pragma once

#include <memory>
#include <string>

#include "spec/kernel_spec.h"
#include "gpu/gpu_emit_common.h"
#include "emulator/emulator_options.h"
#include "emulator/emulator_prelude.h"
#include "target/launcher.h"
#include "target/target.h"

namespace tsr::cuda::emu {

// Builds `source` (the cuda emitter's text, possibly edited by a test) with
// clang++ into a shared object of kind "emulated_shared_object". The launch
// geometry is recorded in the same metadata keys as a cubin's (cuda.grid,
// cuda.block, cuda.shared_bytes).
Expected<Artifact> build_emulated(const KernelSpec& spec, const std::string& arch, const std::string& source);

// What the emulator needs from the target that emitted a source: the target
// kind (the artifact's, and the metadata prefix: <kind>.grid, <kind>.block,
// <kind>.shared_bytes), the language, the lanes per warp or wavefront, and
// the launch plan the emitter wrote the source for.
struct EmulatedKind {
  std::string kind;
  EmulatedDialect dialect = EmulatedDialect::cuda;
  int wave_size = 32;
  gpu::LaunchPlan plan;
};
Expected<Artifact> build_emulated_module(const KernelSpec& spec, const std::string& arch, const std::string& source,
                                         const EmulatedKind& kind);

// One launch on the CPU, geometry from the artifact's metadata; outputs are
// written back into `args`. Memcheck, racecheck, divergence, barrier, watchdog and cp.async errors
// fail the launch with a message that lists them (the first few, and a count).
// cuda.shared_bytes > 0 is the block's dynamic shared region (tsr_dynamic_shared()).
// A launch that issues cp.async copies runs with them landing late and eager,
// and fails when the outputs differ (landing_schedules.h).
Status emulate_launch(const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args,
                      const EmulatorOptions& options = {});

// An emulated module exports what LoadedModule resolves before a launch:
// tsr_emu_entry and tsr_emu_shared_range (functions), tsr_emu_regs and
// tsr_emu (the slots the emulator fills).
Status check_emulated_module_abi(const KernelSpec& spec, const Artifact& artifact);

// The device of every emulated target: present, DeviceInfo::emulated.
DeviceInfo emulated_device();

// The cuda target with the emulator as its compile step: its artifacts are
// emulated modules, launched by EmulatorLauncher. It is deliberately not in
// the target registry: its verdicts are emulated.
std::unique_ptr<Target> make_emulated_cuda_target();

// The emulator as a Launcher, so the oracle (trials, guard zones, reference,
// determinism) runs emulated modules exactly as it runs devices. It knows no
// oracle. `emulated` (an emulated target: make_emulated_cuda_target,
// Target::make_emulated) gives the budget floor; the device is emulated_device().
class EmulatorLauncher final : public Launcher {
 public:
  explicit EmulatorLauncher(const Target& emulated, EmulatorOptions options = {})
      : emulated_(emulated), options_(std::move(options)) {}
  DeviceInfo device(const std::string&) const override { return emulated_device(); }
  BudgetFloor budget_floor(const KernelSpec& spec) const override { return emulated_.budget_floor(spec); }
  Status launch(const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args) const override {
    return emulate_launch(spec, artifact, args, options_);
  }

 private:
  const Target& emulated_;
  EmulatorOptions options_;
};

}  // namespace tsr::cuda::emu
