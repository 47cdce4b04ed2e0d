// Per-family CUDA C++ emitters (CUDA C++ Programming Guide, PTX ISA).
// Each returns deterministic source and the launch geometry it assumes.
#pragma once

#include "spec/kernel_spec.h"
#include "targets/cuda/cuda_emit_common.h"

namespace tsr::cuda {

EmittedKernel emit_elementwise(const KernelSpec& spec);
EmittedKernel emit_matmul(const KernelSpec& spec);
EmittedKernel emit_rowwise(const KernelSpec& spec);

// The same families in another dialect (the hip target's HIP C++): the
// prelude replaced, reductions over the dialect's wave size.
EmittedKernel emit_elementwise(const KernelSpec& spec, const GpuDialect& dialect);
EmittedKernel emit_rowwise(const KernelSpec& spec, const GpuDialect& dialect);
// The f32 FMA-tile matmul (any storage dtype: operands are read through
// tsr_ld), with the epilogue, after the dialect's prelude.
EmittedKernel emit_matmul_fma_tiles(const KernelSpec& spec, const GpuDialect& dialect);
// The epilogue function (tsr_epilogue) and the extra arguments a call passes.
std::string matmul_epilogue_function(const KernelSpec& spec);
std::string matmul_epilogue_args(const MatmulSpec& m);

// Dispatches on spec.family; attention is refused before this is reached.
EmittedKernel emit_kernel(const KernelSpec& spec);

}  // namespace tsr::cuda
