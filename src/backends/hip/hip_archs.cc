// AMD GPU architecture table of the hip target (see hip_archs.h).
#include "hip/hip_archs.h"

namespace tsr::hip {

const std::vector<HipArch>& hip_archs() {
  static const std::vector<HipArch> archs = {
      {"gfx90a", 64, true},
      {"gfx940", 64, true},
      {"gfx1030", 32, false},
      {"gfx1100", 32, false},
  };
  return archs;
}

std::vector<std::string> hip_arch_names() {
  std::vector<std::string> names;
  for (const HipArch& a : hip_archs()) names.push_back(a.name);
  return names;
}

const HipArch* find_hip_arch(const std::string& name) {
  for (const HipArch& a : hip_archs())
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace tsr::hip
