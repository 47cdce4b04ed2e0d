// Per-family CUDA C++ emitters (CUDA C++ Programming Guide, PTX ISA).
// Each returns deterministic source and the launch geometry it assumes.
#pragma once

#include "spec/kernel_spec.h"
#include "cuda/cuda_emit_common.h"

namespace tsr::cuda {

// The blocking of the f32 FMA-tile matmul: a block of 256 threads computes a
// bm x bn tile of C in steps of bk, each thread a tm x tn part of it. Powers
// of two with (bm / tm) * (bn / tn) == 256 and bk * bm, bk * bn multiples of
// 256 (every thread loads whole tile elements). The default is the tile the
// hip target shares.
struct FmaTiling {
  int bm = 64, bn = 64, bk = 16, tm = 4, tn = 4;
};
// Threads per block of the elementwise kernels, unless a candidate says otherwise.
constexpr int kElementwiseBlock = 256;

EmittedKernel emit_elementwise(const KernelSpec& spec);
// f16/bf16 take the tensor-core tiles, which have no tunables here; f32 takes `tiling`.
EmittedKernel emit_matmul(const KernelSpec& spec, const FmaTiling& tiling = {});
EmittedKernel emit_rowwise(const KernelSpec& spec);

// The same families in another dialect (the hip target's HIP C++): the
// prelude replaced, reductions over the dialect's wave size.
EmittedKernel emit_elementwise(const KernelSpec& spec, const GpuDialect& dialect, int block = kElementwiseBlock);
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
