#include "spec/target_catalogue.h"

#include <algorithm>

namespace tsr {

std::optional<TargetName> parse_target_name(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
  return TargetName{text.substr(0, colon), text.substr(colon + 1)};
}

// The one list of archs per kind. x86: the psABI levels (v4+amx: Sapphire
// Rapids' tile unit); cuda: the CUDA 13 toolkit's sm_80 and newer, then
// portable PTX; hip: the gfx the hip arch table describes; xdna: Phoenix
// (npu1) and Strix (npu4).
const std::vector<TargetKind>& target_catalogue() {
  static const std::vector<TargetKind> kinds = {
      {"x86", {"v2", "v3", "v4", "v4+amx"}},
      {"cuda", {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120", "ptx"}},
      {"hip", {"gfx90a", "gfx940", "gfx1030", "gfx1100"}},
      {"xdna", {"npu1", "npu4"}},
  };
  return kinds;
}

const TargetKind* find_target_kind(const std::string& kind) {
  for (const TargetKind& k : target_catalogue())
    if (k.kind == kind) return &k;
  return nullptr;
}

bool is_known_target(const TargetName& name) {
  const TargetKind* kind = find_target_kind(name.kind);
  return kind && std::find(kind->archs.begin(), kind->archs.end(), name.arch) != kind->archs.end();
}

std::vector<std::string> target_kind_names() {
  std::vector<std::string> names;
  for (const TargetKind& k : target_catalogue()) names.push_back(k.kind);
  return names;
}

std::vector<TargetName> all_target_names() {
  std::vector<TargetName> names;
  for (const TargetKind& k : target_catalogue())
    for (const std::string& arch : k.archs) names.push_back({k.kind, arch});
  return names;
}

std::string unknown_target_message(const std::string& text, const TargetRefusals& refusals) {
  std::string known;
  for (const TargetName& t : all_target_names()) known += (known.empty() ? "" : ", ") + t.str();
  std::string message = "unknown target '" + text + "' (known: " + known + ")";
  const std::optional<TargetName> name = parse_target_name(text);
  if (name && find_target_kind(name->kind)) message += ": " + refusals.refusal(*name, KernelSpec{});
  return message;
}

}  // namespace tsr
