// The family emitters the CUDA and HIP targets share, written once against
// a GpuDialect (gpu_emit_common.h): the prelude that defines the primitives
// and the lanes a reduction spans. Each returns deterministic source and the
// launch geometry it assumes. The CUDA-only tensor-core matmul is in
// cuda/cuda_emit_matmul.cc.
#pragma once

#include <string>

#include "gpu/gpu_emit_common.h"
#include "spec/kernel_spec.h"

namespace tsr::gpu {

// The blocking of the f32 FMA-tile matmul: a block of 256 threads computes a
// bm x bn tile of C in steps of bk, each thread a tm x tn part of it. Powers
// of two with (bm / tm) * (bn / tn) == 256 and bk * bm, bk * bn multiples of
// 256 (every thread loads whole tile elements). The default is the tile the
// hip target uses.
struct FmaTiling {
  int bm = 64, bn = 64, bk = 16, tm = 4, tn = 4;
};

// Threads per block of the elementwise kernels, unless a candidate says otherwise.
constexpr int kElementwiseBlock = 256;

EmittedKernel emit_elementwise(const KernelSpec& spec, const GpuDialect& dialect, int block = kElementwiseBlock);
// Reductions over the dialect's wave size.
EmittedKernel emit_rowwise(const KernelSpec& spec, const GpuDialect& dialect);
// Flash-style attention (gpu_emit_attention.cc).
EmittedKernel emit_attention(const KernelSpec& spec, const GpuDialect& dialect);

// The f32 FMA-tile matmul (any storage dtype: operands are read through
// tsr_ld), with the epilogue, after the dialect's prelude.
EmittedKernel emit_matmul_fma_tiles(const KernelSpec& spec, const GpuDialect& dialect, const FmaTiling& tiling = {});
// Its kernel text alone (after the prelude and the epilogue function).
std::string fma_tile_kernel(const KernelSpec& spec, const FmaTiling& tiling);

// The epilogue function (tsr_epilogue) and the extra arguments a call passes.
std::string matmul_epilogue_function(const KernelSpec& spec);
std::string matmul_epilogue_args(const MatmulSpec& m);
// The extents, and the early return of a launch with an empty C (uniform
// across the grid, before any barrier). K = 0 still writes epilogue(0).
std::string matmul_extents(const KernelSpec& spec);

}  // namespace tsr::gpu
