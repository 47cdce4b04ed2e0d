// MFMA matmul for gfx90a/gfx940 (AMD Instinct MI200 ISA, "Matrix fused
// multiply-add"; AMD matrix instruction calculator, v_mfma_f32_32x32x8f16 and
// v_mfma_f32_32x32x8bf16_1k, which share one layout). With lane l of a wave64
// and register j (or r for C/D):
//   A (32x8, M x K): lane l holds row l%32, k = 4*(l/32) + j, j = 0..3
//   B (8x32, K x N): lane l holds column l%32, k = 4*(l/32) + j
//   C/D (32x32):     lane l, register r holds row 8*(r/4) + 4*(l/32) + r%4, column l%32
// Products are exact in f32 and accumulate in f32 (the hardware's internal
// order is not modelled by the emulator).
#include "hip/hip_emit_matmul.h"

#include "gpu/gpu_emit_families.h"

namespace tsr::hip {

namespace {

std::string mfma_wrapper(DType dtype) {
  std::string s = "// One v_mfma_f32_32x32x8 over the wavefront (cbsz = abid = blgp = 0).\n"
                  "__device__ __forceinline__ tsr_float16 tsr_mfma_32x32x8(tsr_short4 a, tsr_short4 b, tsr_float16 c) {\n";
  if (dtype == DType::bf16) s += "  return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);\n";
  else
    s += "  return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(tsr_half4, a), "
         "__builtin_bit_cast(tsr_half4, b), c, 0, 0, 0);\n";
  return s + "}\n\n";
}

// One operand tile element (bits) from global memory, zero outside the matrix.
// `rows x cols` as the tile sits in LDS ([m][k] for A, [n][k] for B).
std::string tile_load(const std::string& tile, const std::string& ptr, bool k_contiguous, const std::string& outer,
                      const std::string& outer_extent) {
  std::string s;
  if (k_contiguous)   // global [outer][K]: consecutive threads read consecutive k
    s += "      { const int k = e & 15, o = e >> 4;\n"
         "        const long long go = " + outer + " + o, gk = k0 + k;\n"
         "        " + tile + "[o][k] = (go < " + outer_extent + " && gk < K) ? tsr_ldg(" + ptr + ", go * K + gk) : (tsr_t)0; }\n";
  else   // global [K][outer]: consecutive threads read consecutive outer indices
    s += "      { const int o = e & 63, k = e >> 6;\n"
         "        const long long go = " + outer + " + o, gk = k0 + k;\n"
         "        " + tile + "[o][k] = (go < " + outer_extent + " && gk < K) ? tsr_ldg(" + ptr + ", gk * " +
         outer_extent + " + go) : (tsr_t)0; }\n";
  return s;
}

}  // namespace

gpu::EmittedKernel emit_matmul_mfma(const KernelSpec& spec, const gpu::GpuDialect& dialect) {
  const MatmulSpec& m = spec.matmul();
  const std::string args = gpu::matmul_epilogue_args(m);
  std::string s = dialect.prelude + mfma_wrapper(spec.dtype) + gpu::matmul_epilogue_function(spec);
  s += gpu::kernel_signature(spec, 256) + " {\n";
  s += "  const long long M = " + gpu::dim_expr(spec, m.m) + ", N = " + gpu::dim_expr(spec, m.n) +
       ", K = " + gpu::dim_expr(spec, m.k) + ";\n  if (M == 0 || N == 0) return;\n";
  s += R"(  // LDS tiles of 16-bit bits, k contiguous: a lane's 4 k values are one 8-byte read.
  __shared__ tsr_t As[64][16 + 4];   // [m][k]
  __shared__ tsr_t Bs[64][16 + 4];   // [n][k]
  const int tid = threadIdx.x, lane = tid & 63, wave = tid >> 6;
  const int wm = wave >> 1, wn = wave & 1;   // wave tile: rows wm*32.., cols wn*32..
  const long long m0 = (long long)blockIdx.y * 64, n0 = (long long)blockIdx.x * 64;
  tsr_float16 acc = (tsr_float16)0.0f;
  for (long long k0 = 0; k0 < K; k0 += 16) {
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const int e = tid + t * 256;
)";
  s += tile_load("As", "p_a", m.a == Layout::row, "m0", "M");
  s += tile_load("Bs", "p_b", m.b == Layout::col, "n0", "N");
  s += R"(    }
    tsr_syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; kk += 8) {
      tsr_short4 a, b;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        a[j] = (short)As[wm * 32 + (lane & 31)][kk + (lane >> 5) * 4 + j];
        b[j] = (short)Bs[wn * 32 + (lane & 31)][kk + (lane >> 5) * 4 + j];
      }
      acc = tsr_mfma_32x32x8(a, b, acc);
    }
    tsr_syncthreads();   // every wave is done with the tiles before they are refilled
  }
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    const long long row = m0 + wm * 32 + 8 * (r >> 2) + 4 * (lane >> 5) + (r & 3);
    const long long col = n0 + wn * 32 + (lane & 31);
)";
  s += "    if (row < M && col < N) tsr_st(p_c, row * N + col, tsr_epilogue(acc[r], row, col, N" + args + "));\n";
  s += "  }\n}\n";

  gpu::EmittedKernel k{std::move(s), {}};
  k.plan.block_x = 256;
  k.plan.grid_x = gpu::grid_cdiv(m.n, 64);
  k.plan.grid_y = gpu::grid_cdiv(m.m, 64);
  return k;
}

}  // namespace tsr::hip
