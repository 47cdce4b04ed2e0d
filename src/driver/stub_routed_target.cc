#include "driver/stub_routed_target.h"

#include "spec/abi.h"
#include "tesserart.h"

namespace tsr {
namespace {

tsr_dtype stub_dtype(DType t) {
  switch (t) {
    case DType::f32: return TSR_DTYPE_F32;
    case DType::f16: return TSR_DTYPE_F16;
    case DType::bf16: return TSR_DTYPE_BF16;
  }
  return TSR_DTYPE_F32;
}

class StubRoutedTarget final : public Target {
 public:
  StubRoutedTarget(const Target& inner, tsr_archive* archive, TargetName target)
      : inner_(inner), archive_(archive), target_(std::move(target)) {}

  std::string kind() const override { return inner_.kind(); }
  std::vector<std::string> archs() const override { return inner_.archs(); }
  std::string unsupported_reason(const KernelSpec& s, const std::string& a) const override {
    return inner_.unsupported_reason(s, a);
  }
  Expected<std::string> emit(const KernelSpec& s, const std::string& a) const override { return inner_.emit(s, a); }
  ToolchainInfo toolchain() const override { return inner_.toolchain(); }
  Expected<Artifact> compile(const KernelSpec& s, const std::string& a, const std::string& src) const override {
    return inner_.compile(s, a, src);
  }
  DeviceInfo device(const std::string& a) const override { return inner_.device(a); }
  BudgetFloor budget_floor(const KernelSpec& s) const override { return inner_.budget_floor(s); }

  Status run(const KernelSpec& spec, const Artifact&, LaunchArgs& args) const override {
    tsr_select_options options{target_.kind.c_str(), 0};
    // Pretending the CPU's level makes the stub pick exactly the tier under test.
    if (target_.kind == "x86" && target_.arch.size() == 2 && target_.arch[0] == 'v') options.x86_level = target_.arch[1] - '0';
    tsr_kernel* kernel = nullptr;
    tsr_status st = tsr_kernel_load(archive_, spec.name.c_str(), &options, &kernel);
    if (st != TSR_OK)
      return toolchain_error("stub: tsr_kernel_load(" + spec.name + "): " + tsr_status_string(st) + ": " +
                             tsr_archive_last_message(archive_));
    tsr_selection selected{};
    tsr_kernel_selection(kernel, &selected);
    const std::string chosen = std::string(selected.target_kind) + ":" + selected.arch;
    if (chosen != target_.str()) {
      tsr_kernel_unload(kernel);
      return toolchain_error("stub selected " + chosen + ", not " + target_.str());
    }
    const KernelAbi abi = kernel_abi(spec);
    const std::vector<const Binding*> buffers = abi.buffers();
    std::vector<tsr_buffer_arg> bargs;
    for (size_t i = 0; i < buffers.size() && i < args.buffers.size(); ++i)
      bargs.push_back({args.buffers[i].data(), args.buffers[i].size(), stub_dtype(buffers[i]->dtype),
                       buffers[i]->role == Role::input ? TSR_ROLE_IN : TSR_ROLE_OUT});
    st = tsr_kernel_launch(kernel, bargs.data(), bargs.size(), args.scalars.data(), args.scalars.size(), nullptr);
    const std::string message = tsr_kernel_last_message(kernel);
    tsr_kernel_unload(kernel);
    if (st != TSR_OK) return toolchain_error(std::string("stub: tsr_kernel_launch: ") + tsr_status_string(st) + ": " + message);
    return ok();
  }

 private:
  const Target& inner_;
  tsr_archive* archive_;
  TargetName target_;
};

}  // namespace

std::unique_ptr<Target> make_stub_routed_target(const Target& inner, tsr_archive* archive, const TargetName& target) {
  return std::make_unique<StubRoutedTarget>(inner, archive, target);
}

}  // namespace tsr
