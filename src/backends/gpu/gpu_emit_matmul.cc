// The f32 FMA-tile matmul of the CUDA and HIP dialects (CUDA C++
// Programming Guide: shared-memory tiling): a 64x64x16 tile by default, no
// TF32 (it would break the f32 accuracy contract), operands read through
// tsr_ld in any storage dtype. The epilogue runs on the f32 accumulators in
// registers before the one store.
#include <string>

#include "gpu/gpu_emit_families.h"

namespace tsr::gpu {

std::string matmul_epilogue_function(const KernelSpec& spec) {
  const MatmulSpec& m = spec.matmul();
  std::string s = "// Epilogue on the f32 accumulator, in spec order.\n";
  s += "__device__ __forceinline__ float tsr_epilogue(float v, long long row, long long col, long long N";
  if (m.has_bias()) s += ", const tsr_t* __restrict__ bias";
  if (m.has_residual()) s += ", const tsr_t* __restrict__ residual";
  s += ") {\n";
  for (const EpilogueOp& e : m.epilogue) {
    switch (e.kind) {
      case EpilogueOp::Kind::bias: s += "  v += tsr_ld(bias, col);\n"; break;
      case EpilogueOp::Kind::residual: s += "  v += tsr_ld(residual, row * N + col);\n"; break;
      case EpilogueOp::Kind::scale: s += "  v *= " + float_literal(e.scale) + ";\n"; break;
      case EpilogueOp::Kind::clamp:
        s += "  v = fminf(fmaxf(v, " + float_literal(e.lo) + "), " + float_literal(e.hi) + ");\n";
        break;
      case EpilogueOp::Kind::activation:
        s += "  v = " + unary_expr(e.activation, "v") + ";   // " + op_name(e.activation) + "\n";
        break;
    }
  }
  return s + "  (void)row; (void)col; (void)N;\n  return v;\n}\n\n";
}

std::string matmul_epilogue_args(const MatmulSpec& m) {
  std::string s;
  if (m.has_bias()) s += ", " + buffer_param("bias");
  if (m.has_residual()) s += ", " + buffer_param("residual");
  return s;
}

namespace {

int log2_of(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

// `for t < count: e = tid + t * 256; <body>` over one operand tile's elements.
std::string tile_load_loop(int count, const std::string& body) {
  return "#pragma unroll\n    for (int t = 0; t < " + std::to_string(count) + "; ++t) {\n" +
         "      const int e = tid + t * 256;\n" + body + "    }\n";
}

}  // namespace

// The extents, and the early return of a launch with an empty C (uniform
// across the grid, before any barrier). K = 0 still writes epilogue(0).
std::string matmul_extents(const KernelSpec& spec) {
  const MatmulSpec& m = spec.matmul();
  return "  const long long M = " + dim_expr(spec, m.m) + ", N = " + dim_expr(spec, m.n) + ", K = " +
         dim_expr(spec, m.k) + ";\n  if (M == 0 || N == 0) return;\n";
}

std::string fma_tile_kernel(const KernelSpec& spec, const FmaTiling& t) {
  const MatmulSpec& m = spec.matmul();
  const bool a_row = m.a == Layout::row, b_row = m.b == Layout::row;
  auto n = [](int v) { return std::to_string(v); };
  // f32 operands are read as stored; 16-bit ones (the hip target's plain path) converted.
  const std::string ld = spec.dtype == DType::f32 ? "tsr_ldg" : "tsr_ld";
  const int threads_n = t.bn / t.tn;
  std::string s = kernel_signature(spec, 256) + " {\n" + matmul_extents(spec);
  s += "  __shared__ float As[" + n(t.bk) + "][" + n(t.bm) + " + 4];   // [k][m]\n";
  s += "  __shared__ float Bs[" + n(t.bk) + "][" + n(t.bn) + " + 4];   // [k][n]\n";
  s += "  const int tid = threadIdx.x, tx = tid & " + n(threads_n - 1) + ", ty = tid >> " + n(log2_of(threads_n)) +
       ";\n";
  s += "  const long long m0 = (long long)blockIdx.y * " + n(t.bm) + ", n0 = (long long)blockIdx.x * " + n(t.bn) +
       ";\n";
  s += "  float acc[" + n(t.tm) + "][" + n(t.tn) + "];\n";
  s += "#pragma unroll\n  for (int i = 0; i < " + n(t.tm) + "; ++i)\n";
  s += "#pragma unroll\n    for (int j = 0; j < " + n(t.tn) + "; ++j) acc[i][j] = 0.0f;\n";
  s += "  for (long long k0 = 0; k0 < K; k0 += " + n(t.bk) + ") {\n";
  // Map the tile elements so consecutive threads read consecutive addresses.
  std::string load_a, load_b;
  if (a_row)
    load_a = "      const int ak = e & " + n(t.bk - 1) + ", am = e >> " + n(log2_of(t.bk)) + ";\n" +
             "      const long long gm = m0 + am, gk = k0 + ak;\n"
             "      As[ak][am] = (gm < M && gk < K) ? " + ld + "(p_a, gm * K + gk) : 0.0f;\n";
  else
    load_a = "      const int am = e & " + n(t.bm - 1) + ", ak = e >> " + n(log2_of(t.bm)) + ";\n" +
             "      const long long gm = m0 + am, gk = k0 + ak;\n"
             "      As[ak][am] = (gm < M && gk < K) ? " + ld + "(p_a, gk * M + gm) : 0.0f;\n";
  if (b_row)
    load_b = "      const int bn = e & " + n(t.bn - 1) + ", bk = e >> " + n(log2_of(t.bn)) + ";\n" +
             "      const long long gn = n0 + bn, gkb = k0 + bk;\n"
             "      Bs[bk][bn] = (gn < N && gkb < K) ? " + ld + "(p_b, gkb * N + gn) : 0.0f;\n";
  else
    load_b = "      const int bk = e & " + n(t.bk - 1) + ", bn = e >> " + n(log2_of(t.bk)) + ";\n" +
             "      const long long gn = n0 + bn, gkb = k0 + bk;\n"
             "      Bs[bk][bn] = (gn < N && gkb < K) ? " + ld + "(p_b, gn * K + gkb) : 0.0f;\n";
  const int a_loads = t.bk * t.bm / 256, b_loads = t.bk * t.bn / 256;
  if (a_loads == b_loads) s += tile_load_loop(a_loads, load_a + load_b);
  else s += tile_load_loop(a_loads, load_a) + tile_load_loop(b_loads, load_b);
  s += "    tsr_syncthreads();\n";
  s += "#pragma unroll\n    for (int kk = 0; kk < " + n(t.bk) + "; ++kk) {\n";
  s += "      float av[" + n(t.tm) + "], bv[" + n(t.tn) + "];\n";
  if (t.tm == t.tn)
    s += "#pragma unroll\n      for (int i = 0; i < " + n(t.tm) + "; ++i) { av[i] = As[kk][ty * " + n(t.tm) +
         " + i]; bv[i] = Bs[kk][tx * " + n(t.tn) + " + i]; }\n";
  else
    s += "#pragma unroll\n      for (int i = 0; i < " + n(t.tm) + "; ++i) av[i] = As[kk][ty * " + n(t.tm) + " + i];\n" +
         "#pragma unroll\n      for (int j = 0; j < " + n(t.tn) + "; ++j) bv[j] = Bs[kk][tx * " + n(t.tn) + " + j];\n";
  s += "#pragma unroll\n      for (int i = 0; i < " + n(t.tm) + "; ++i)\n";
  s += "#pragma unroll\n        for (int j = 0; j < " + n(t.tn) + "; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);\n";
  s += "    }\n    tsr_syncthreads();\n  }\n";
  s += "#pragma unroll\n  for (int i = 0; i < " + n(t.tm) + "; ++i) {\n";
  s += "    const long long row = m0 + ty * " + n(t.tm) + " + i;\n    if (row >= M) continue;\n";
  s += "#pragma unroll\n    for (int j = 0; j < " + n(t.tn) + "; ++j) {\n";
  s += "      const long long col = n0 + tx * " + n(t.tn) + " + j;\n";
  s += "      if (col < N) tsr_st(p_c, row * N + col, tsr_epilogue(acc[i][j], row, col, N" + matmul_epilogue_args(m) +
       "));\n";
  s += "    }\n  }\n}\n";
  return s;
}

EmittedKernel emit_matmul_fma_tiles(const KernelSpec& spec, const GpuDialect& dialect, const FmaTiling& tiling) {
  EmittedKernel k{dialect.prelude + matmul_epilogue_function(spec) + fma_tile_kernel(spec, tiling), {}};
  k.plan.block_x = 256;
  k.plan.grid_x = grid_cdiv(spec.matmul().n, tiling.bn);
  k.plan.grid_y = grid_cdiv(spec.matmul().m, tiling.bm);
  return k;
}


}  // namespace tsr::gpu
