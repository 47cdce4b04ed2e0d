// bf16 matmul on x86:v4 with VDPBF16PS where the CPU has AVX512-BF16
// (CPUID.(EAX=7,ECX=1):EAX[5]; Intel SDM vol. 2, VDPBF16PS). An x86:v4
// artifact must run on every v4 CPU, so the kernel asks cpuid once and picks
// a path at run time: with AVX512-BF16 the packed panels hold bf16 pairs
// (A as (A[m][k], A[m][k+1]), B as (B[k][n], B[k+1][n])) and the micro-kernel
// takes two products per lane per instruction; without it, today's widening
// to f32 and the FMA micro-kernel. Both paths use the same blocking, plan and
// workspace (a pair takes the bytes of one f32, so the f32 offsets hold the
// pair panels in their first half); an odd kc pads the last pair with zero.
// Measured in bench/x86_bf16_dot (docs/performance.md, "vdpbf16ps on x86:v4").
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

bool uses_bf16dot(const KernelSpec& spec, const Tier& tier) {
  return spec.family == Family::matmul && spec.dtype == DType::bf16 && tier.arch == "v4" && !tier.amx;
}

std::string emit_bf16dot_helpers(const KernelSpec& spec, int mr, int nv) {
  (void)spec;
  std::ostringstream os;
  os << "/* ---- VDPBF16PS path (x86_emit_matmul_bf16dot.cc), chosen once by cpuid ---- */\n"
     << emit_cpu_avx512bf16()
     << "static int tsr_bf16dot(void) {\n"
     << "#ifdef TSR_BF16DOT_OFF   /* tests and bench/x86_bf16_dot only: the widening path on any CPU */\n"
     << "  return 0;\n"
     << "#endif\n"
     << "  return tsr_cpu_avx512bf16();\n"
     << "}\n\n"
     << "#define TSR_PAIR(lo, hi) ((uint32_t)(lo) | (uint32_t)(hi) << 16)\n"
     << "/* tsr_pack_a with (A[m][k], A[m][k+1]) pairs: (kc+1)/2 pairs of MR rows per panel */\n"
     << "static void tsr_pack_a_pairs(uint32_t* restrict ap, const tsr_storage* restrict a, int64_t i0, int64_t mc,\n"
     << "                             int64_t p0, int64_t kc, int64_t dim_m, int64_t dim_k) {\n"
     << "  (void)dim_m;\n  (void)dim_k;\n"
     << "  for (int64_t ir = 0; ir < mc; ir += MR) {\n"
     << "    const int64_t rows = mc - ir < MR ? mc - ir : MR;\n"
     << "    uint32_t* restrict panel = ap + ir * kc;\n"
     << "    for (int64_t kp = 0; kp < (kc + 1) / 2; ++kp) {\n"
     << "      const int64_t k = p0 + 2 * kp;\n"
     << "      const int odd_tail = 2 * kp + 1 == kc;\n"
     << "      int64_t r = 0;\n"
     << "      for (; r < rows; ++r)\n"
     << "        panel[kp * MR + r] = TSR_PAIR(a[A_AT(i0 + ir + r, k)], odd_tail ? 0 : a[A_AT(i0 + ir + r, k + 1)]);\n"
     << "      for (; r < MR; ++r) panel[kp * MR + r] = 0;\n"
     << "    }\n"
     << "  }\n"
     << "}\n\n"
     << "/* tsr_pack_b with (B[k][n], B[k+1][n]) pairs: (kc+1)/2 rows of NR pairs per panel */\n"
     << "static void tsr_pack_b_pairs(uint32_t* restrict bp, const tsr_storage* restrict b, int64_t j0, int64_t nc,\n"
     << "                             int64_t ncpad, int64_t jr, int64_t dim_n, int64_t dim_k) {\n"
     << "  const int64_t cols = nc - jr < NR ? nc - jr : NR;\n"
     << "  (void)dim_n;\n"
     << "  for (int64_t p0 = 0; p0 < dim_k; p0 += KC) {\n"
     << "    const int64_t kc = dim_k - p0 < KC ? dim_k - p0 : KC;\n"
     << "    uint32_t* restrict panel = bp + p0 * ncpad + jr * kc;\n"
     << "    for (int64_t kp = 0; kp < (kc + 1) / 2; ++kp) {\n"
     << "      const int64_t k = p0 + 2 * kp;\n"
     << "      const int odd_tail = 2 * kp + 1 == kc;\n"
     << "      int64_t c = 0;\n"
     << "      for (; c < cols; ++c)\n"
     << "        panel[kp * NR + c] = TSR_PAIR(b[B_AT(k, j0 + jr + c)], odd_tail ? 0 : b[B_AT(k + 1, j0 + jr + c)]);\n"
     << "      for (; c < NR; ++c) panel[kp * NR + c] = 0;\n"
     << "    }\n"
     << "  }\n"
     << "}\n\n";

  os << "/* tsr_micro_kernel on pairs: per lane c += a_hi * b_hi + a_lo * b_lo (VDPBF16PS:\n"
     << " * bf16 denormals read as zero, f32 denormals flushed, round to nearest even, MXCSR\n"
     << " * not consulted) */\n"
     << "__attribute__((target(\"avx512bf16\"))) TSR_VECTOR_FN static void tsr_micro_kernel_pairs(\n"
     << "    int64_t kc, const uint32_t* restrict ap, const uint32_t* restrict bp, const float* c_in, float* c_out) {\n";
  for (int i = 0; i < mr; ++i) {
    os << "  __m512";
    for (int j = 0; j < nv; ++j) os << (j ? ", " : " ") << "c" << i << "_" << j;
    os << ";\n";
  }
  os << "  if (c_in) {\n";
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nv; ++j)
      os << "    c" << i << "_" << j << " = _mm512_load_ps(c_in + " << (i * nv + j) * 16 << ");\n";
  os << "  } else {\n";
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nv; ++j) os << "    c" << i << "_" << j << " = _mm512_setzero_ps();\n";
  os << "  }\n"
     << "#pragma clang loop unroll_count(2)\n"
     << "  for (int64_t kp = 0; kp < (kc + 1) / 2; ++kp) {\n";
  for (int j = 0; j < nv; ++j)
    os << "    const __m512bh b" << j << " = (__m512bh)_mm512_load_si512(bp + " << j * 16 << ");\n";
  for (int i = 0; i < mr; ++i) {
    os << "    {\n      const __m512bh a = (__m512bh)_mm512_set1_epi32((int)ap[" << i << "]);\n";
    for (int j = 0; j < nv; ++j)
      os << "      c" << i << "_" << j << " = _mm512_dpbf16_ps(c" << i << "_" << j << ", a, b" << j << ");\n";
    os << "    }\n";
  }
  os << "    ap += MR;\n    bp += NR;\n  }\n";
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nv; ++j)
      os << "  _mm512_store_ps(c_out + " << (i * nv + j) * 16 << ", c" << i << "_" << j << ");\n";
  os << "}\n\n";

  os << "/* the packing and micro-kernel calls of the kernel, on the path this CPU takes */\n"
     << "static void tsr_pack_a_any(float* restrict ap, const tsr_storage* restrict a, int64_t i0, int64_t mc,\n"
     << "                           int64_t p0, int64_t kc, int64_t dim_m, int64_t dim_k) {\n"
     << "  if (tsr_bf16dot()) tsr_pack_a_pairs((uint32_t*)ap, a, i0, mc, p0, kc, dim_m, dim_k);\n"
     << "  else tsr_pack_a(ap, a, i0, mc, p0, kc, dim_m, dim_k);\n"
     << "}\n"
     << "static void tsr_pack_b_any(float* restrict bp, const tsr_storage* restrict b, int64_t j0, int64_t nc,\n"
     << "                           int64_t ncpad, int64_t jr, int64_t dim_n, int64_t dim_k) {\n"
     << "  if (tsr_bf16dot()) tsr_pack_b_pairs((uint32_t*)bp, b, j0, nc, ncpad, jr, dim_n, dim_k);\n"
     << "  else tsr_pack_b(bp, b, j0, nc, ncpad, jr, dim_n, dim_k);\n"
     << "}\n"
     << "static void tsr_micro_kernel_any(int64_t kc, const float* restrict ap, const float* restrict bp,\n"
     << "                                 const float* c_in, float* c_out) {\n"
     << "  if (tsr_bf16dot()) tsr_micro_kernel_pairs(kc, (const uint32_t*)ap, (const uint32_t*)bp, c_in, c_out);\n"
     << "  else tsr_micro_kernel(kc, ap, bp, c_in, c_out);\n"
     << "}\n"
     << "/* ---- end of the VDPBF16PS path ---- */\n\n";
  return os.str();
}

}  // namespace tsr::x86
