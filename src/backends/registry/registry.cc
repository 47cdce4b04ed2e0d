#include "registry/registry.h"

#include "cuda/cuda_target.h"
#include "hip/hip_target.h"
#include "x86/x86_target.h"
#include "xdna/xdna_target.h"

namespace tsr {

const std::vector<std::unique_ptr<Target>>& all_targets() {
  static const std::vector<std::unique_ptr<Target>> targets = [] {
    std::vector<std::unique_ptr<Target>> v;
    v.push_back(make_x86_target());
    v.push_back(make_cuda_target());
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
