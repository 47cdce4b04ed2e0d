// Per-family CUDA C++ emitters (CUDA C++ Programming Guide, PTX ISA).
// Each returns deterministic source and the launch geometry it assumes.
#pragma once

#include "spec/kernel_spec.h"
#include "targets/cuda/cuda_emit_common.h"

namespace tsr::cuda {

EmittedKernel emit_elementwise(const KernelSpec& spec);
EmittedKernel emit_matmul(const KernelSpec& spec);
EmittedKernel emit_rowwise(const KernelSpec& spec);

// Dispatches on spec.family; attention is refused before this is reached.
EmittedKernel emit_kernel(const KernelSpec& spec);

}  // namespace tsr::cuda
