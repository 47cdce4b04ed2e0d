// The emulated hip target (hip_emulated_target.h): the emulator's build
// (src/backends/emulator/emulator.h; EmulatorLauncher launches) with the HIP dialect of the
// emulation prelude and the arch's wavefront size.
#include "hip/hip_emulated_target.h"

#include "emulator/emulator.h"
#include "emulator/emulator_toolchain.h"
#include "hip/hip_emit_kernels.h"

namespace tsr::hip {

namespace {

class EmulatedHipTarget final : public Target {
 public:
  explicit EmulatedHipTarget(std::unique_ptr<Target> real) : real_(std::move(real)) {}

  std::string kind() const override { return "hip"; }
  std::vector<std::string> archs() const override { return real_ ? real_->archs() : hip_arch_names(); }
  std::string unsupported_reason(const KernelSpec& spec, const std::string& arch) const override {
    if (real_) return real_->unsupported_reason(spec, arch);
    if (!find_hip_arch(arch)) return "architecture " + arch + " is not supported by the hip target";
    return "";
  }
  Expected<std::string> emit(const KernelSpec& spec, const std::string& arch) const override {
    if (real_) return real_->emit(spec, arch);
    if (std::string why = unsupported_reason(spec, arch); !why.empty()) return invalid_input(why);
    return emit_kernel(spec, *find_hip_arch(arch)).source;
  }
  ToolchainInfo toolchain() const override { return cuda::emu::emulator_clang(); }
  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                             const std::string& source) const override {
    const HipArch* a = find_hip_arch(arch);
    if (!a) return invalid_input("architecture " + arch + " is not supported by the hip target");
    return cuda::emu::build_emulated_module(
        spec, arch, source, {"hip", cuda::emu::EmulatedDialect::hip, a->wave_size, emit_kernel(spec, *a).plan});
  }
  // The emulated kernel is a host shared object, not a code object.
  std::string artifact_file_extension(const Artifact&) const override { return ".so"; }
  DeviceInfo device(const std::string&) const override { return cuda::emu::emulated_device(); }
  Status check_abi(const KernelSpec& spec, const Artifact& artifact) const override {
    return cuda::emu::check_emulated_module_abi(spec, artifact);
  }
  BudgetFloor budget_floor(const KernelSpec& spec) const override {
    return real_ ? real_->budget_floor(spec) : BudgetFloor{};
  }

 private:
  std::unique_ptr<Target> real_;
};

}  // namespace

std::unique_ptr<Target> make_emulated_hip_target(std::unique_ptr<Target> real) {
  return std::make_unique<EmulatedHipTarget>(std::move(real));
}

}  // namespace tsr::hip
