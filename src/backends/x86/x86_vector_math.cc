// Vector math for the emitted x86 C: every unary op of the closed op table
// (DESIGN.md §2) on clang ext_vector_type(VW) f32 vectors, written once for
// every tier (SSE 4 lanes, AVX2 8, AVX-512 16); only sqrt and the "any lane"
// test are tier intrinsics (Intel SDM vol. 2: SQRTPS, MOVMSKPS, VPMOVD2M).
// No libm call: each function is range reduction plus a polynomial, so a
// kernel's shared object imports no transcendental (docs/decisions.md, "Vector
// math without SLEEF"). Accuracy and special values: docs/targets-x86.md,
// "Vector math"; measured by tests/unit/x86_vector_math_test.cc.
//
// Polynomials: exp is Cephes expf's (S. L. Moshier, Cephes Math Library);
// the others are Chebyshev interpolants of the named function computed in
// MPFR at 256 bits, converted to monomials and rounded to f32 (degree chosen
// as the smallest whose f32 Horner evaluation stays within about 2 ulp).
#include <sstream>

#include "target/c_expr.h"
#include "target/vector_math_text.h"
#include "x86/x86_internal.h"

namespace tsr::x86 {

std::string emit_vector_math(const Tier& tier, DType output) {
  const bool v4 = tier.arch == "v4", v3 = tier.arch == "v3";
  const char* reg = v4 ? "__m512" : v3 ? "__m256" : "__m128";
  const char* prefix = v4 ? "_mm512" : v3 ? "_mm256" : "_mm";
  std::ostringstream os;
  os << "/* ---- vector math (docs/targets-x86.md, \"Vector math\"): f32 lanes, no libm ---- */\n"
     << "enum { VW = " << tier.vector_floats << " }; /* f32 lanes per vector register */\n"
     << "typedef float tsr_vec __attribute__((ext_vector_type(VW)));\n"
     << "typedef float tsr_uvec __attribute__((ext_vector_type(VW), aligned(4)));\n"
     << "typedef int32_t tsr_ivec __attribute__((ext_vector_type(VW)));\n"
     << "typedef uint32_t tsr_u32vec __attribute__((ext_vector_type(VW)));\n"
     << "typedef double tsr_dvec __attribute__((ext_vector_type(VW)));\n"
     << "TSR_INLINE tsr_vec tsr_vsqrt(tsr_vec v) { return (tsr_vec)" << prefix << "_sqrt_ps((" << reg << ")v); }\n";
  // a * b + c rounded once where the tier has FMA (v3, v4); v2 has none, so
  // nothing fuses there and the math takes its FMA-free forms (TSR_HAVE_FMA 0).
  if (tier.fma)
    os << "#define TSR_HAVE_FMA 1\n"
       << "TSR_INLINE tsr_vec tsr_vfma(tsr_vec a, tsr_vec b, tsr_vec c) { return (tsr_vec)" << prefix << "_fmadd_ps(("
       << reg << ")a, (" << reg << ")b, (" << reg << ")c); }\n";
  else
    os << "#define TSR_HAVE_FMA 0\n"
       << "TSR_INLINE tsr_vec tsr_vfma(tsr_vec a, tsr_vec b, tsr_vec c) { return a * b + c; }\n";
  // 1/s for s in [1, 2], to be refined by the caller's remainder step:
  // VRCP14PS (relative error < 2^-14) on v4; on v3 RCPPS (1.5 * 2^-12) with
  // one Newton step (about 2^-22); v2 divides.
  if (v4)
    os << "TSR_INLINE tsr_vec tsr_vrecip(tsr_vec s) { return (tsr_vec)_mm512_rcp14_ps((__m512)s); }\n"
       << "/* p 2^n for integer-valued n, rounded once (VSCALEFPS) */\n"
       << "#define TSR_HAVE_SCALEF 1\n"
       << "TSR_INLINE tsr_vec tsr_vldexp(tsr_vec p, tsr_vec n) { return (tsr_vec)_mm512_scalef_ps((__m512)p, (__m512)n); }\n";
  else if (v3)
    os << "TSR_INLINE tsr_vec tsr_vrecip(tsr_vec s) {\n"
       << "  const tsr_vec r = (tsr_vec)_mm256_rcp_ps((__m256)s);\n"
       << "  return tsr_vfma(r, tsr_vfma(-s, r, (tsr_vec)1.0f), r);\n}\n"
       << "#define TSR_HAVE_SCALEF 0\n";
  else
    os << "TSR_INLINE tsr_vec tsr_vrecip(tsr_vec s) { return 1.0f / s; }\n#define TSR_HAVE_SCALEF 0\n";
  os << "/* whether any lane of a comparison result is set */\n";
  if (v4) os << "TSR_INLINE int tsr_any(tsr_ivec m) { return _mm512_movepi32_mask((__m512i)m) != 0; }\n";
  else os << "TSR_INLINE int tsr_any(tsr_ivec m) { return " << prefix << "_movemask_ps((" << reg << ")m) != 0; }\n";
  // The forms for 16-bit outputs (vector_math_text.cc, "bf16 / f16 outputs"):
  // TSR_MATH_16 is the output's significand bits, 0 for f32.
  os << "#define TSR_MATH_16 " << (output == DType::bf16 ? 8 : output == DType::f16 ? 11 : 0) << "\n"
     << vector_math_text() << "\n";
  return os.str();
}

std::string vector_unary_expr(Op op, const std::string& v) {
  return std::string("tsr_v") + op_name(op) + "(" + v + ")";
}

std::string vector_binary_expr(Op op, const std::string& a, const std::string& b) {
  if (!op_is_binary(op)) return vector_unary_expr(op, a);
  // fmaxf / fminf semantics (a NaN operand yields the other), lane by lane.
  if (op == Op::max) return "__builtin_elementwise_max(" + a + ", " + b + ")";
  if (op == Op::min) return "__builtin_elementwise_min(" + a + ", " + b + ")";
  return c_binary_expr(op, a, b);
}

std::string vector_row_expr(Op op, const std::string& row, const std::string& count) {
  const std::string lane = "*(tsr_vec*)(" + row + " + j)";
  return "for (int64_t j = 0; j < " + count + "; j += VW) " + lane + " = " + vector_unary_expr(op, lane) + ";";
}

}  // namespace tsr::x86
