// The inline-PTX definitions of the GPU primitives (PTX ISA 8.x sections cited
// per group). Behaviour is exactly that of the code the emitters wrote inline
// before the primitives had names; the emulator's C++ twins are in
// src/backends/emulator/emulator_prelude.cc.
#include "cuda/cuda_primitives.h"

#include "gpu/gpu_emit_common.h"

namespace tsr::cuda {

namespace {

const char* kBarrier = "__device__ __forceinline__ void tsr_syncthreads() { __syncthreads(); }\n";

// PTX ISA "cvt": round to nearest even for f32 -> f16/bf16.
const char* kHalf = R"(__device__ __forceinline__ float tsr_cvt_f16_to_f32(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ unsigned short tsr_cvt_f32_to_f16(float f) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ unsigned short tsr_cvt_f32_to_bf16(float f) {
  unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
)";

const char* kShuffle = R"(__device__ __forceinline__ float tsr_shfl_xor_sync(unsigned mask, float v, int lane_mask) {
  return __shfl_xor_sync(mask, v, lane_mask);
}
)";

// The block's dynamic shared memory (CUDA C++ Programming Guide, "__shared__":
// an extern array without size whose bytes the launch gives). Named so the
// emulator can hand each block its own region of cuda.shared_bytes.
const char* kDynamicShared = R"(extern __shared__ __align__(16) unsigned char tsr_dynamic_smem[];
__device__ __forceinline__ unsigned char* tsr_dynamic_shared() { return tsr_dynamic_smem; }
)";

// PTX ISA "cvta", "cp.async" (cg: 16 bytes, src-size zero-fill),
// "cp.async.commit_group", "cp.async.wait_group", "ldmatrix" (m8n8 .x4 b16),
// "mma" (m16n8k16 row.col, f32 accumulators).
const char* kTensorCore = R"(__device__ __forceinline__ unsigned tsr_smem_addr(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}
// 16 bytes global -> shared; src_bytes == 0 writes zeros without reading.
__device__ __forceinline__ void tsr_cp_async16(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :: "r"(tsr_smem_addr(smem)), "l"(gmem), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void tsr_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void tsr_cp_async_wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
__device__ __forceinline__ void tsr_ldmatrix_x4(unsigned* r, const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(tsr_smem_addr(smem)));
}
__device__ __forceinline__ void tsr_ldmatrix_x4_trans(unsigned* r, const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(tsr_smem_addr(smem)));
}
__device__ __forceinline__ void tsr_mma_m16n8k16(float* d, const unsigned* a, const unsigned* b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.TSR_MMA_TYPE.TSR_MMA_TYPE.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
)";

}  // namespace

PrimitiveSet primitives_for(const KernelSpec& spec) {
  PrimitiveSet set;
  set.half_conversions = spec.dtype != DType::f32;
  set.warp_shuffle = spec.family == Family::rowwise;
  set.tensor_core = spec.family == Family::matmul && spec.dtype != DType::f32;
  return set;
}

std::string primitives_source(const PrimitiveSet& set, DType storage) {
  std::string s = "// GPU primitives (inline PTX). The CPU emulator compiles this file with TSR_EMULATED\n"
                  "// defined and its own definitions of the same names (docs/emulator.md).\n"
                  "#ifndef TSR_EMULATED\n";
  s += gpu::global_memory_primitives();
  s += kBarrier;
  if (set.half_conversions) s += kHalf;
  if (set.warp_shuffle) s += kShuffle;
  if (set.dynamic_shared) s += kDynamicShared;
  if (set.tensor_core) {
    std::string tc = kTensorCore;
    const std::string type = storage == DType::bf16 ? "bf16" : "f16";
    for (size_t at; (at = tc.find("TSR_MMA_TYPE")) != std::string::npos;) tc.replace(at, 12, type);
    s += tc;
  }
  return s + "#endif  // TSR_EMULATED\n\n";
}

}  // namespace tsr::cuda
