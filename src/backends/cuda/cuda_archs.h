// The NVIDIA architectures this target builds for (CUDA 13 toolkit; sm_80 is the
// floor because the f16/bf16 matmul uses mma.sync.m16n8k16 and cp.async).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tsr::cuda {

// "sm_80" ... "sm_120", then "ptx".
const std::vector<std::string>& cuda_arch_names();

// The compute capability the PTX is generated for: the lowest listed one.
constexpr int kPtxComputeCapability = 80;

// 90 for "sm_90"; nullopt for "ptx" or anything that is not sm_<digits>.
std::optional<int> sm_number(const std::string& arch);

// Empty when `arch` is listed, otherwise the refusal naming it.
std::string arch_refusal(const std::string& arch);

}  // namespace tsr::cuda
