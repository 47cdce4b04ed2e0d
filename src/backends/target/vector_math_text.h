// The emitted vector math shared by the C-family emitters (x86 C, HIP C++).
// The text expects, defined before it: TSR_INLINE, enum VW, the vector types
// tsr_vec / tsr_ivec / tsr_dvec (f32 / i32 / f64, ext_vector_type(VW)), NAN,
// INFINITY, int32_t/int64_t, tsr_vsqrt(tsr_vec), tsr_any(tsr_ivec), and the
// tier's arithmetic: TSR_HAVE_FMA (0/1) with tsr_vfma(a, b, c), tsr_vrecip(s)
// (1/s for s in [1, 2] within 2^-14, refined by the caller), TSR_HAVE_SCALEF
// (0/1; 1: tsr_vldexp(p, n) = p 2^n rounded once, else the text defines it). It
// defines tsr_v<op>(tsr_vec) for every unary op (tsr_vexp, tsr_vtanh, tsr_verf,
// tsr_vlog, tsr_vsigmoid, tsr_vsilu, tsr_vgelu_tanh, tsr_vgelu_erf, ...).
#pragma once

namespace tsr {

const char* vector_math_text();

}  // namespace tsr
