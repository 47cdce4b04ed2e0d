// NVIDIA architecture names for the cuda target (CUDA 13 toolkit release notes:
// NVRTC accepts compute_75 ... compute_121; sm_7x below 75 were removed).
#include "cuda/cuda_archs.h"

#include <cctype>

#include "spec/target_catalogue.h"

namespace tsr::cuda {

const std::vector<std::string>& cuda_arch_names() {
  return find_target_kind("cuda")->archs;
}

std::optional<int> sm_number(const std::string& arch) {
  if (arch.size() < 4 || arch.compare(0, 3, "sm_") != 0 || arch.size() > 7) return std::nullopt;
  int n = 0;
  for (size_t i = 3; i < arch.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(arch[i]))) return std::nullopt;
    n = n * 10 + (arch[i] - '0');
  }
  return n;
}

std::string arch_refusal(const std::string& arch) {
  std::string supported;
  for (const std::string& a : cuda_arch_names()) {
    if (a == arch) return "";
    supported += (supported.empty() ? "" : ", ") + a;
  }
  const std::optional<int> sm = sm_number(arch);
  if (sm && *sm < 75)
    return "architecture " + arch + " is not supported by CUDA 13 (supported: " + supported + ")";
  if (sm && *sm < 80)
    return "architecture " + arch + " is not supported by the cuda target: the kernels need sm_80 or newer "
           "(supported: " + supported + ")";
  return "architecture " + arch + " is not supported by the cuda target (supported: " + supported + ")";
}

}  // namespace tsr::cuda
