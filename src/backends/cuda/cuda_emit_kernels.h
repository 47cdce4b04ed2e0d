// The cuda target's emitters (CUDA C++ Programming Guide, PTX ISA): the
// shared family emitters (gpu/gpu_emit_families.h) in the CUDA dialect, and
// the tensor-core matmul for f16/bf16.
#pragma once

#include "gpu/gpu_emit_families.h"
#include "spec/kernel_spec.h"

namespace tsr::cuda {

gpu::EmittedKernel emit_elementwise(const KernelSpec& spec);
// f16/bf16 take the tensor-core tiles, which have no tunables here; f32 takes `tiling`.
gpu::EmittedKernel emit_matmul(const KernelSpec& spec, const gpu::FmaTiling& tiling = {});
gpu::EmittedKernel emit_rowwise(const KernelSpec& spec);

// Dispatches on spec.family.
gpu::EmittedKernel emit_kernel(const KernelSpec& spec);

}  // namespace tsr::cuda
