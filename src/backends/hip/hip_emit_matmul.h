// 16-bit matmul on AMD matrix cores (v_mfma_f32_32x32x8bf16_1k /
// v_mfma_f32_32x32x8f16; AMD Instinct MI200 (CDNA2) ISA, "Matrix fused
// multiply-add" and AMD's matrix instruction calculator for the lane layouts).
#pragma once

#include "spec/kernel_spec.h"
#include "gpu/gpu_emit_common.h"

namespace tsr::hip {

// 64x64 block tiles of 4 wavefronts (wave64), each a 32x32 MFMA tile; K in
// steps of 16 through LDS; the epilogue on the f32 accumulators before the store.
gpu::EmittedKernel emit_matmul_mfma(const KernelSpec& spec, const gpu::GpuDialect& dialect);

}  // namespace tsr::hip
