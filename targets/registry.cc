#include "targets/registry.h"

#include "targets/cuda/cuda_target.h"
#include "targets/hip/hip_target.h"
#include "targets/x86/x86_target.h"
#include "targets/xdna/xdna_target.h"

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

std::vector<TargetName> all_target_names() {
  std::vector<TargetName> names;
  for (const auto& t : all_targets())
    for (const std::string& arch : t->archs()) names.push_back({t->kind(), arch});
  return names;
}

std::string unknown_target_message(const std::string& text) {
  std::string known;
  for (const TargetName& t : all_target_names()) known += (known.empty() ? "" : ", ") + t.str();
  std::string message = "unknown target '" + text + "' (known: " + known + ")";
  const std::optional<TargetName> name = parse_target_name(text);
  const Target* target = name ? find_target(name->kind) : nullptr;
  // Every target refuses an unknown arch before it looks at the spec.
  if (target) message += ": " + target->unsupported_reason(KernelSpec{}, name->arch);
  return message;
}

std::optional<TargetName> parse_target_name(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
  return TargetName{text.substr(0, colon), text.substr(colon + 1)};
}

}  // namespace tsr
