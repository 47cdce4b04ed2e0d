// Matmul family for x86 (System V AMD64 psABI; x86-64 levels v2-v4).
// GotoBLAS/BLIS structure (Goto & van de Geijn, "Anatomy of High-Performance
// Matrix Multiplication", TOMS 2008): B packed into NR-wide panels per column
// block, A packed into MR-high panels per (MC, KC) block, and a register-blocked
// MR x NR micro-kernel written with clang vector extensions. Packing converts
// f16/bf16 to f32 and absorbs the row/col layouts, so the micro-kernel sees
// one layout. Tails are zero-padded in the packed panels and masked at the
// store, where the epilogue runs on the f32 accumulator.
#include <sstream>

#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

struct Tiling {
  int mr;          // rows of C per micro-tile
  int nv;          // vectors per micro-tile row; NR = nv * vector_floats
  int kc;          // depth of one packed block
  int mc;          // rows of A per packed block (multiple of mr)
  long b_budget;   // bytes of packed B kept live per column block
};

// Register budget: mr * nv accumulators + nv B vectors + one broadcast must
// fit the tier's vector registers (16 for SSE/AVX2, 32 for AVX-512). On
// Zen 4, 8 x 32 measured level with 14 x 32 and with OpenBLAS (docs/performance.md).
Tiling tiling_for(const Tier& tier) {
  if (tier.arch == "v4") return Tiling{8, 2, 256, 128, 4l << 20};
  if (tier.arch == "v3") return Tiling{6, 2, 256, 120, 4l << 20};
  return Tiling{6, 2, 256, 120, 2l << 20};
}

std::string epilogue_lines(const MatmulSpec& mm, const std::string& indent) {
  std::ostringstream os;
  for (const EpilogueOp& e : mm.epilogue) {
    switch (e.kind) {
      case EpilogueOp::Kind::bias: os << indent << "v += tsr_load(bias, n);\n"; break;
      case EpilogueOp::Kind::residual: os << indent << "v += tsr_load(residual, m * dim_n + n);\n"; break;
      case EpilogueOp::Kind::scale: os << indent << "v *= " << float_literal(e.scale) << ";\n"; break;
      case EpilogueOp::Kind::clamp:
        os << indent << "v = fminf(fmaxf(v, " << float_literal(e.lo) << "), " << float_literal(e.hi) << ");\n";
        break;
      case EpilogueOp::Kind::activation: os << indent << "v = " << unary_expr(e.activation, "v") << ";\n"; break;
    }
  }
  return os.str();
}

std::string epilogue_description(const MatmulSpec& mm) {
  if (mm.epilogue.empty()) return "none";
  std::string s;
  for (const EpilogueOp& e : mm.epilogue) {
    if (!s.empty()) s += ", ";
    switch (e.kind) {
      case EpilogueOp::Kind::bias: s += "bias"; break;
      case EpilogueOp::Kind::residual: s += "residual"; break;
      case EpilogueOp::Kind::scale: s += "scale " + float_literal(e.scale); break;
      case EpilogueOp::Kind::clamp: s += "clamp " + float_literal(e.lo) + ".." + float_literal(e.hi); break;
      case EpilogueOp::Kind::activation: s += op_name(e.activation); break;
    }
  }
  return s;
}

// Parameters passed from the kernel to its static helpers for the epilogue operands.
std::string operand_params(const MatmulSpec& mm) {
  std::string s;
  if (mm.has_bias()) s += ", const tsr_storage* restrict bias";
  if (mm.has_residual()) s += ", const tsr_storage* restrict residual";
  return s;
}
std::string operand_args(const MatmulSpec& mm) {
  std::string s;
  if (mm.has_bias()) s += ", bias";
  if (mm.has_residual()) s += ", residual";
  return s;
}

std::string micro_kernel(const Tiling& t, const Tier& tier) {
  std::ostringstream os;
  const int vw = tier.vector_floats;
  os << "/* MR x NR micro-kernel: C_tile = C_in (or 0) + Ap_panel * Bp_panel over kc.\n"
     << " * Ap is MR floats per k, Bp is NR floats per k (both 64-byte aligned). */\n"
     << "TSR_VECTOR_FN static void tsr_micro_kernel(int64_t kc, const float* restrict ap, const float* restrict bp,\n"
     << "                             const float* c_in, float* c_out) {\n";
  for (int i = 0; i < t.mr; ++i) {
    os << "  tsr_vec";
    for (int j = 0; j < t.nv; ++j) os << (j ? ", " : " ") << "c" << i << "_" << j;
    os << ";\n";
  }
  os << "  if (c_in) {\n";
  for (int i = 0; i < t.mr; ++i)
    for (int j = 0; j < t.nv; ++j)
      os << "    c" << i << "_" << j << " = *(const tsr_vec*)(c_in + " << i * t.nv * vw + j * vw << ");\n";
  os << "  } else {\n";
  for (int i = 0; i < t.mr; ++i)
    for (int j = 0; j < t.nv; ++j) os << "    c" << i << "_" << j << " = 0.0f;\n";
  os << "  }\n"
     << "#pragma clang loop unroll_count(4)\n"
     << "  for (int64_t k = 0; k < kc; ++k) {\n";
  for (int j = 0; j < t.nv; ++j)
    os << "    const tsr_vec b" << j << " = *(const tsr_vec*)(bp + " << j * vw << ");\n";
  for (int i = 0; i < t.mr; ++i) {
    os << "    {\n      const float a = ap[" << i << "];\n";
    for (int j = 0; j < t.nv; ++j) os << "      c" << i << "_" << j << " += a * b" << j << ";\n";
    os << "    }\n";
  }
  os << "    ap += MR;\n    bp += NR;\n  }\n";
  for (int i = 0; i < t.mr; ++i)
    for (int j = 0; j < t.nv; ++j)
      os << "  *(tsr_vec*)(c_out + " << i * t.nv * vw + j * vw << ") = c" << i << "_" << j << ";\n";
  os << "}\n\n";
  return os.str();
}

}  // namespace

std::string emit_matmul(const KernelSpec& spec, const Tier& tier) {
  const MatmulSpec& mm = spec.matmul();
  const Tiling t = tiling_for(tier);
  const int nr = t.nv * tier.vector_floats;   // NR, also named in the emitted enum
  const bool a_row = mm.a == Layout::row, b_row = mm.b == Layout::row;
  std::ostringstream os;
  os << emit_prelude(spec, tier,
                     "C[M,N] = A[M,K] * B[K,N] with M = " + mm.m.str() + ", N = " + mm.n.str() +
                         ", K = " + mm.k.str() + "; layout a = " + layout_name(mm.a) + " (stored " +
                         (a_row ? "[M,K]" : "[K,M]") + "), b = " + layout_name(mm.b) + " (stored " +
                         (b_row ? "[K,N]" : "[N,K]") + "), C row-major; epilogue: " + epilogue_description(mm));
  os << "enum { VW = " << tier.vector_floats << ", MR = " << t.mr << ", NR = " << nr << ", KC = " << t.kc
     << ", MC = " << t.mc << " }; /* micro-tile " << t.mr << " x " << nr << " */\n"
     << "#define TSR_B_BUDGET_BYTES " << t.b_budget << "L /* packed B kept live per column block */\n"
     << "typedef float tsr_vec __attribute__((ext_vector_type(VW)));\n\n";

  // Element accessors absorb the layouts.
  os << "/* A(m, k) and B(k, n) in storage order */\n"
     << "#define A_AT(m, k) ((int64_t)" << (a_row ? "(m) * dim_k + (k)" : "(k) * dim_m + (m)") << ")\n"
     << "#define B_AT(k, n) ((int64_t)" << (b_row ? "(k) * dim_n + (n)" : "(n) * dim_k + (k)") << ")\n\n";

  // Packing A: MR-row panels, k-major inside a panel, zero rows past mc.
  os << "/* pack A[i0 : i0+mc, p0 : p0+kc] into MR-row panels (f32, zero-padded) */\n"
     << "static void tsr_pack_a(float* restrict ap, const tsr_storage* restrict a, int64_t i0, int64_t mc,\n"
     << "                       int64_t p0, int64_t kc, int64_t dim_m, int64_t dim_k) {\n"
     << "  (void)dim_m;\n  (void)dim_k;   /* one of them is the leading dimension, per layout */\n"
     << "  for (int64_t ir = 0; ir < mc; ir += MR) {\n"
     << "    const int64_t rows = mc - ir < MR ? mc - ir : MR;\n"
     << "    float* restrict panel = ap + ir * kc;\n";
  if (a_row) {
    os << "    for (int64_t r = 0; r < MR; ++r) {\n"
       << "      if (r < rows) {\n"
       << "        const int64_t m = i0 + ir + r;\n"
       << "        for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = tsr_load(a, A_AT(m, p0 + k));\n"
       << "      } else {\n"
       << "        for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = 0.0f;\n"
       << "      }\n"
       << "    }\n";
  } else {
    os << "    for (int64_t k = 0; k < kc; ++k) {\n"
       << "      int64_t r = 0;\n"
       << "      for (; r < rows; ++r) panel[k * MR + r] = tsr_load(a, A_AT(i0 + ir + r, p0 + k));\n"
       << "      for (; r < MR; ++r) panel[k * MR + r] = 0.0f;\n"
       << "    }\n";
  }
  os << "  }\n}\n\n";

  // Packing B: for every KC block, NR-column panels, zero columns past nc.
  os << "/* pack B[0 : K, j0 : j0+nc] into KC blocks of NR-column panels (f32, zero-padded);\n"
     << " * block p0 starts at bp + p0 * ncpad, panel jr inside it at + jr * kc */\n"
     << "static void tsr_pack_b(float* restrict bp, const tsr_storage* restrict b, int64_t j0, int64_t nc,\n"
     << "                       int64_t ncpad, int64_t dim_n, int64_t dim_k) {\n"
     << "  for (int64_t p0 = 0; p0 < dim_k; p0 += KC) {\n"
     << "    const int64_t kc = dim_k - p0 < KC ? dim_k - p0 : KC;\n"
     << "    for (int64_t jr = 0; jr < ncpad; jr += NR) {\n"
     << "      const int64_t cols = nc - jr < NR ? nc - jr : NR;\n"
     << "      float* restrict panel = bp + p0 * ncpad + jr * kc;\n";
  if (b_row) {
    os << "      for (int64_t k = 0; k < kc; ++k) {\n"
       << "        int64_t c = 0;\n"
       << "        for (; c < cols; ++c) panel[k * NR + c] = tsr_load(b, B_AT(p0 + k, j0 + jr + c));\n"
       << "        for (; c < NR; ++c) panel[k * NR + c] = 0.0f;\n"
       << "      }\n";
  } else {
    os << "      for (int64_t c = 0; c < NR; ++c) {\n"
       << "        if (c < cols) {\n"
       << "          for (int64_t k = 0; k < kc; ++k) panel[k * NR + c] = tsr_load(b, B_AT(p0 + k, j0 + jr + c));\n"
       << "        } else {\n"
       << "          for (int64_t k = 0; k < kc; ++k) panel[k * NR + c] = 0.0f;\n"
       << "        }\n"
       << "      }\n";
  }
  os << "    }\n  }\n}\n\n";

  os << micro_kernel(t, tier);

  // Store of one finished tile through the epilogue.
  os << "/* C[m0 : m0+rows, n0 : n0+cols] = epilogue(tile) rounded to storage */\n"
     << "static void tsr_store_tile(const float* restrict tile, tsr_storage* restrict c" << operand_params(mm)
     << ",\n                           int64_t m0, int64_t n0, int64_t rows, int64_t cols, int64_t dim_n) {\n"
     << "  for (int64_t i = 0; i < rows; ++i) {\n"
     << "    const int64_t m = m0 + i;\n"
     << "    for (int64_t j = 0; j < cols; ++j) {\n"
     << "      const int64_t n = n0 + j;\n"
     << "      float v = tile[i * NR + j];\n"
     << epilogue_lines(mm, "      ") << "      tsr_store(c, m * dim_n + n, v);\n"
     << "    }\n  }\n  (void)m0;\n}\n\n";

  // Fallback when the packing buffers cannot be allocated: same arithmetic, no blocking.
  os << "/* unblocked fallback, used only when the packing buffers cannot be allocated */\n"
     << "static void tsr_matmul_unblocked(const tsr_storage* restrict a, const tsr_storage* restrict b,\n"
     << "                                 tsr_storage* restrict c" << operand_params(mm)
     << ", int64_t dim_m, int64_t dim_n, int64_t dim_k) {\n"
     << "  for (int64_t m = 0; m < dim_m; ++m)\n"
     << "    for (int64_t n = 0; n < dim_n; ++n) {\n"
     << "      float v = 0.0f;\n"
     << "      for (int64_t k = 0; k < dim_k; ++k) v += tsr_load(a, A_AT(m, k)) * tsr_load(b, B_AT(k, n));\n"
     << epilogue_lines(mm, "      ") << "      tsr_store(c, m * dim_n + n, v);\n"
     << "    }\n}\n\n"
     << "static void* tsr_alloc_floats(int64_t count) {\n"
     << "  size_t bytes = ((size_t)(count > 0 ? count : 1) * sizeof(float) + 63) & ~(size_t)63;\n"
     << "  return aligned_alloc(64, bytes);\n"
     << "}\n\n";

  os << emit_kernel_head(spec) << " {\n"
     << "  const int64_t dim_m = " << dim_expr(spec, mm.m) << ";\n"
     << "  const int64_t dim_n = " << dim_expr(spec, mm.n) << ";\n"
     << "  const int64_t dim_k = " << dim_expr(spec, mm.k) << ";\n"
     << "  /* an empty C returns at once; K = 0 still writes epilogue(0), the empty sum */\n"
     << "  if (dim_m <= 0 || dim_n <= 0) return;\n"
     << "  /* column block: as many NR panels as keep packed B for all of K in budget */\n"
     << "  const int64_t k_rows = dim_k > 0 ? dim_k : 1;\n"
     << "  int64_t nc_max = TSR_B_BUDGET_BYTES / (k_rows * (int64_t)sizeof(float)) / NR * NR;\n"
     << "  if (nc_max < NR) nc_max = NR;\n"
     << "  if (nc_max > (dim_n + NR - 1) / NR * NR) nc_max = (dim_n + NR - 1) / NR * NR;\n"
     << "  const int64_t k_blocks = dim_k > 0 ? (dim_k + KC - 1) / KC : 1;\n"
     << "  float* bp = (float*)tsr_alloc_floats(k_rows * nc_max);\n"
     << "  float* ap = (float*)tsr_alloc_floats((int64_t)MC * KC);\n"
     << "  /* f32 partial sums between KC blocks (C may be 16-bit, and the epilogue runs once) */\n"
     << "  float* cw = k_blocks > 1 ? (float*)tsr_alloc_floats((int64_t)MC * nc_max) : NULL;\n"
     << "  if (!bp || !ap || (k_blocks > 1 && !cw)) {\n"
     << "    free(bp);\n    free(ap);\n    free(cw);\n"
     << "    tsr_matmul_unblocked(a, b, c" << operand_args(mm) << ", dim_m, dim_n, dim_k);\n"
     << "    return;\n  }\n"
     << "  float tile[MR * NR] __attribute__((aligned(64)));\n"
     << "  for (int64_t j0 = 0; j0 < dim_n; j0 += nc_max) {\n"
     << "    const int64_t nc = dim_n - j0 < nc_max ? dim_n - j0 : nc_max;\n"
     << "    const int64_t ncpad = (nc + NR - 1) / NR * NR;\n"
     << "    tsr_pack_b(bp, b, j0, nc, ncpad, dim_n, dim_k);\n"
     << "    for (int64_t i0 = 0; i0 < dim_m; i0 += MC) {\n"
     << "      const int64_t mc = dim_m - i0 < MC ? dim_m - i0 : MC;\n"
     << "      for (int64_t kb = 0; kb < k_blocks; ++kb) {\n"
     << "        const int64_t p0 = kb * KC;\n"
     << "        const int64_t kc = dim_k - p0 < KC ? dim_k - p0 : KC;\n"
     << "        const int first = kb == 0, last = kb == k_blocks - 1;\n"
     << "        tsr_pack_a(ap, a, i0, mc, p0, kc, dim_m, dim_k);\n"
     << "        for (int64_t jr = 0; jr < nc; jr += NR) {\n"
     << "          const float* b_panel = bp + p0 * ncpad + jr * kc;\n"
     << "          for (int64_t ir = 0; ir < mc; ir += MR) {\n"
     << "            const float* a_panel = ap + ir * kc;\n"
     << "            float* partial = cw ? cw + ((jr / NR) * (MC / MR) + ir / MR) * (MR * NR) : NULL;\n"
     << "            if (!last) {\n"
     << "              tsr_micro_kernel(kc, a_panel, b_panel, first ? NULL : partial, partial);\n"
     << "            } else {\n"
     << "              tsr_micro_kernel(kc, a_panel, b_panel, first ? NULL : partial, tile);\n"
     << "              tsr_store_tile(tile, c" << operand_args(mm) << ", i0 + ir, j0 + jr,\n"
     << "                             mc - ir < MR ? mc - ir : MR, nc - jr < NR ? nc - jr : NR, dim_n);\n"
     << "            }\n"
     << "          }\n"
     << "        }\n"
     << "      }\n"
     << "    }\n"
     << "  }\n"
     << "  free(cw);\n  free(ap);\n  free(bp);\n"
     << "}\n\n";
  os << emit_entry(spec);
  return os.str();
}

}  // namespace tsr::x86
