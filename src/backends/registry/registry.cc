#include "registry/registry.h"

#include <utility>

#include "cuda/cuda_target.h"
#include "emulator/emulator.h"
#include "hip/hip_target.h"
#include "target/forwarding_target.h"
#include "x86/x86_target.h"
#include "xdna/xdna_target.h"

namespace tsr {

namespace {

// A registered target and its emulated twin (docs/emulator.md). The registry
// is where a backend and the emulator that models it meet, so that the cuda
// directory need not include the emulator built on its emitter.
class WithEmulatedTwin final : public ForwardingTarget {
 public:
  using Twin = std::unique_ptr<Target> (*)();
  WithEmulatedTwin(std::unique_ptr<Target> real, Twin twin)
      : ForwardingTarget(*real), real_(std::move(real)), twin_(twin) {}
  std::unique_ptr<Target> make_emulated() const override { return twin_(); }

 private:
  std::unique_ptr<Target> real_;
  Twin twin_;
};

}  // namespace

const std::vector<std::unique_ptr<Target>>& all_targets() {
  static const std::vector<std::unique_ptr<Target>> targets = [] {
    std::vector<std::unique_ptr<Target>> v;
    v.push_back(make_x86_target());
    v.push_back(std::make_unique<WithEmulatedTwin>(make_cuda_target(),
                                                   [] { return cuda::emu::make_emulated_cuda_target(); }));
    v.push_back(make_hip_target());
    v.push_back(make_xdna_target());
    return v;
  }();
  return targets;
}

const Target* find_target(const std::string& kind) {
  for (const auto& t : all_targets())
    if (t->kind() == kind) return t.get();
  return nullptr;
}

namespace {

class RegistryRefusals final : public TargetRefusals {
 public:
  std::string refusal(const TargetName& name, const KernelSpec& spec) const override {
    const Target* target = find_target(name.kind);
    return target ? target->unsupported_reason(spec, name.arch) : "unknown target kind '" + name.kind + "'";
  }
};

}  // namespace

const TargetRefusals& target_refusals() {
  static const RegistryRefusals refusals;
  return refusals;
}

std::string unknown_target_message(const std::string& text) {
  return unknown_target_message(text, target_refusals());
}

}  // namespace tsr
