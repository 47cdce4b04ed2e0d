// The f32 math of the closed op table as range reduction plus polynomials on
// clang ext_vector_type(VW) vectors (polynomial sources and accuracy:
// src/backends/x86/x86_vector_math.cc, docs/targets-x86.md "Vector math"). The x86
// target emits it with VW = 4/8/16; the hip target with VW = 1, so an AMD GPU
// kernel needs no device library (ocml) either.
#include "target/vector_math_text.h"

namespace tsr {

namespace {

// Tier-independent part. Lanes never interact, so a value's bits do not depend
// on which lane or which (full or zero-padded) vector it is computed in; the
// `if (tsr_any(...))` tests only skip work no lane needs.
const char* const kVectorMath = R"(/* lanes of a where mask is set (all ones), else lanes of b */
TSR_INLINE tsr_vec tsr_select(tsr_ivec mask, tsr_vec a, tsr_vec b) {
  return (tsr_vec)(((tsr_ivec)a & mask) | ((tsr_ivec)b & ~mask));
}
/* |magnitude| with the sign bit of sign (NaN payloads kept) */
TSR_INLINE tsr_vec tsr_copysign(tsr_vec magnitude, tsr_vec sign) {
  return (tsr_vec)(((tsr_ivec)magnitude & 0x7fffffff) | ((tsr_ivec)sign & (int32_t)0x80000000));
}
/* c[0] x^(n-1) + ... + c[n-1], Horner; n and c are constants after inlining */
TSR_INLINE tsr_vec tsr_vhorner(tsr_vec x, const float* c, int n) {
  tsr_vec p = c[0];
  for (int i = 1; i < n; ++i) p = p * x + c[i];
  return p;
}
/* 2^n for integer lanes n in [-126, 127], built in the exponent field */
TSR_INLINE tsr_vec tsr_vpow2i(tsr_ivec n) { return (tsr_vec)((n + 127) << 23); }
#if !TSR_HAVE_SCALEF
/* p 2^n for integer-valued lanes n in [-252, 254]: 2^n in two factors, so
 * that overflow gives inf and a subnormal result rounds once (tiers with
 * AVX-512 use VSCALEFPS instead, which rounds once by definition) */
TSR_INLINE tsr_vec tsr_vldexp(tsr_vec p, tsr_vec n) {
  const tsr_ivec ni = __builtin_convertvector(n, tsr_ivec), half = ni >> 1;
  return p * tsr_vpow2i(half) * tsr_vpow2i(ni - half);
}
#endif

/* e^r * 2^n for |r| <= ln2/2, n in [-152, 192]: 1 + r + r^2 P(r) with Cephes
 * expf's P (6 terms); for bf16 outputs (TSR_MATH_16 8) a 4-term P, a
 * Chebyshev interpolant of (e^r - 1 - r) / r^2 (tools/fit_vector_math.c),
 * relative error 2^-21.6, which bf16's 8 bits do not see */
#if TSR_MATH_16 == 8
static const float tsr_exp_p[4] = {8.357199840e-03f, 4.183380306e-02f, 1.666663140e-01f, 4.999974966e-01f};
#else
static const float tsr_exp_p[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                   4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
#endif
TSR_INLINE tsr_vec tsr_vexp_finish(tsr_vec r, tsr_vec n) {
  const int terms = sizeof tsr_exp_p / sizeof tsr_exp_p[0];
  return tsr_vldexp(tsr_vhorner(r, tsr_exp_p, terms) * r * r + r + 1.0f, n);
}
/* x = n ln2 + r for x in [-105, 89] or NaN: ln2 split in two (Cody-Waite),
 * n rounded to nearest by the 1.5 * 2^23 trick; returns r, n in *n */
TSR_INLINE tsr_vec tsr_vexp_reduce(tsr_vec xc, tsr_vec* n) {
  *n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  return xc - *n * 0.693359375f + *n * 2.12194440e-4f;
}
/* e^x 2^k for x in [-105, 89] or NaN */
TSR_INLINE tsr_vec tsr_vexp_reduced(tsr_vec xc, float k) {
  tsr_vec n;
  const tsr_vec r = tsr_vexp_reduce(xc, &n);
  return tsr_vexp_finish(r, n + k);
}
/* e^x: x = n ln2 + r with ln2 split in two (Cody-Waite), n rounded to nearest
 * by the 1.5 * 2^23 trick; inputs clamped to [-105, 89], past the underflow
 * to 0 and the overflow to inf */
TSR_INLINE tsr_vec tsr_vexp_scaled(tsr_vec x, int32_t k) {   /* e^x 2^k, k in [0, 64], x <= 0 when k > 0 */
  const float low = -105.0f - 0.693147181f * (float)k;   /* e^low 2^k rounds to 0 */
  tsr_vec xc = tsr_select(x < low, (tsr_vec)low, x);
  xc = tsr_select(xc > 89.0f, (tsr_vec)89.0f, xc);
  return tsr_select(x != x, x, tsr_vexp_reduced(xc, (float)k));
}
#if !TSR_MATH_16
TSR_INLINE tsr_vec tsr_vexp(tsr_vec x) { return tsr_vexp_scaled(x, 0); }
#endif
/* a * b exactly as the rounded product plus *lo (FMA; Dekker's splitting
 * where the tier has none) */
TSR_INLINE tsr_vec tsr_vmul_exact(tsr_vec a, tsr_vec b, tsr_vec* lo) {
  const tsr_vec p = a * b;
#if TSR_HAVE_FMA
  *lo = tsr_vfma(a, b, -p);
#else
  const tsr_vec ca = a * 4097.0f, cb = b * 4097.0f;
  const tsr_vec ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
  *lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
  return p;
}
/* e^(hi + lo) 2^k for hi <= 0 and |lo| <= ulp(hi) (a double-f32 argument such
 * as an exact -a^2), k in [0, 64]: lo joins the reduced argument, so the
 * result is as accurate as for an exact argument; below the underflow 0 */
TSR_INLINE tsr_vec tsr_vexp_dd(tsr_vec hi, tsr_vec lo, int32_t k) {
  const float low = -105.0f - 0.693147181f * (float)k;
  const tsr_ivec under = hi < low;
  tsr_vec n;
  const tsr_vec r = tsr_vexp_reduce(tsr_select(under, (tsr_vec)low, hi), &n) + tsr_select(under, (tsr_vec)0.0f, lo);
  return tsr_vexp_finish(r, n + (float)k);
}
/* e^y for an f64 argument (exact squares, products the f32 argument would
 * round): the reduction runs in f64, the polynomial in f32 */
TSR_INLINE tsr_vec tsr_vexp_wide(tsr_dvec y) {
  typedef int64_t tsr_lvec __attribute__((ext_vector_type(VW)));
  tsr_lvec low = y < -105.0, high = y > 89.0;
  const tsr_dvec yc = (tsr_dvec)(((tsr_lvec)y & ~(low | high)) | ((tsr_lvec)(tsr_dvec)-105.0 & low) |
                                 ((tsr_lvec)(tsr_dvec)89.0 & high));
  const tsr_dvec n = (yc * 1.4426950408889634 + 6755399441055744.0) - 6755399441055744.0;
  const tsr_vec r = __builtin_convertvector(yc - n * 0.69314718055994531, tsr_vec);
  const tsr_vec e = tsr_vexp_finish(r, __builtin_convertvector(n, tsr_vec));
  return tsr_select(__builtin_convertvector(y != y, tsr_ivec), (tsr_vec)NAN, e);
}

/* num / (1 + e) for e in [0, 1]: s = 1 + e rounded and its rounding error
 * err (Fast2Sum, e <= 1). With FMA the quotient q0 = num * (1/s approximated)
 * is corrected once by the remainder num - q0 (s + err), which the two FMAs
 * give to far below an ulp: the result is within about 0.55 ulp of the exact
 * quotient with no division on AVX-512 (VRCP14PS, relative error 2^-14, so
 * the correction leaves 2^-28). Without FMA (x86-64-v2): q = num / s, then
 * the rounding of s corrected to first order, with a second division. An
 * infinite quotient stays as it is, and so does the sign of a zero */
TSR_INLINE tsr_vec tsr_vdiv_one_plus(tsr_vec num, tsr_vec e) {
  const tsr_vec s = 1.0f + e, err = (1.0f - s) + e;
#if TSR_HAVE_FMA
  const tsr_vec inv = tsr_vrecip(s), q0 = num * inv;
  const tsr_vec rem = tsr_vfma(-q0, err, tsr_vfma(-q0, s, num));
  const tsr_vec q = tsr_vfma(rem, inv, q0);
  return tsr_select(__builtin_elementwise_abs(q0) == INFINITY, q0, tsr_copysign(q, q0));
#else
  const tsr_vec q = num / s;
  return tsr_select(__builtin_elementwise_abs(q) == INFINITY, q, tsr_copysign(q - q * (err / s), q));
#endif
}
#if TSR_MATH_16
/* ---- bf16 / f16 outputs (TSR_MATH_16 = 8 or 11, the output's significand
 * bits). The result is rounded to 8 or 11 bits at the store, so a relative
 * error near 2^-21 still rounds to the correctly rounded 16-bit value for
 * more than 99.9% of inputs and never misses by a 16-bit ulp more
 * (tests/unit/x86_math_exhaustive_test.cc, every input). The f32 forms'
 * care for their last bit (the rounding error of 1 + e, e scaled by 2^64 so
 * that subnormal results round once, the argument of gelu_tanh's exp in f64)
 * buys nothing there; these forms drop it. ---- */
/* e^x for every x: clamped to [-104, 89] (0 below, inf above); NaN stays NaN */
TSR_INLINE tsr_vec tsr_vexp(tsr_vec x) {
  const tsr_vec xc = tsr_select(x < -104.0f, (tsr_vec)-104.0f, tsr_select(x > 89.0f, (tsr_vec)89.0f, x));
  return tsr_vexp_reduced(xc, 0.0f);
}
/* e^-a for a >= 0 or NaN */
TSR_INLINE tsr_vec tsr_vexp_neg(tsr_vec a) {
  return tsr_vexp_reduced(tsr_select(a > 104.0f, (tsr_vec)-104.0f, -a), 0.0f);
}
/* num / (1 + e), e in [0, 1]: one remainder step on 1/(1 + e) (within 2^-14
 * on AVX-512), the rounding of 1 + e left in (2^-24); inf / ... gives NaN */
TSR_INLINE tsr_vec tsr_vquot_one_plus(tsr_vec num, tsr_vec e) {
  const tsr_vec s = 1.0f + e, inv = tsr_vrecip(s), q0 = num * inv;
  return tsr_vfma(tsr_vfma(-q0, s, num), inv, q0);
}
TSR_INLINE tsr_vec tsr_vsigmoid(tsr_vec x) {
  const tsr_vec e = tsr_vexp_neg(__builtin_elementwise_abs(x));
  return tsr_vquot_one_plus(tsr_select(x < 0.0f, e, (tsr_vec)1.0f), e);
}
/* x sigmoid(z) = x / (1 + e) for z >= 0, x e / (1 + e) below, e = e^-|z|;
 * the sign is x's (gelu(-0) = -0), and x = +-inf gives inf or -0 */
TSR_INLINE tsr_vec tsr_vx_sigmoid(tsr_vec x, tsr_vec z) {
  const tsr_vec e = tsr_vexp_neg(__builtin_elementwise_abs(z));
  const tsr_ivec negative = z < 0.0f;
  const tsr_vec q = tsr_copysign(tsr_vquot_one_plus(x * tsr_select(negative, e, (tsr_vec)1.0f), e), x);
  return tsr_select(__builtin_elementwise_abs(x) == INFINITY, tsr_select(negative, (tsr_vec)-0.0f, x), q);
}
TSR_INLINE tsr_vec tsr_vsilu(tsr_vec x) { return tsr_vx_sigmoid(x, x); }
/* 0.5 x (1 + tanh(u)) = x sigmoid(2u), 2u = x (2 sqrt(2/pi) + 2 sqrt(2/pi) 0.044715 x^2) in f32 */
TSR_INLINE tsr_vec tsr_vgelu_tanh(tsr_vec x) {
  return tsr_vx_sigmoid(x, x * (1.5957691216f + 0.0713548162726f * (x * x)));
}
#else
TSR_INLINE tsr_vec tsr_vsigmoid(tsr_vec x) {
  const tsr_vec e = tsr_vexp(-__builtin_elementwise_abs(x));
  return tsr_vdiv_one_plus(tsr_select(x < 0.0f, e, (tsr_vec)1.0f), e);
}
/* x sigmoid(z) = num / (1 + e), e = e^-|z| <= 1 (no overflow), given e
 * scaled by 2^64: for z < 0, num = x e, scaled back after the product, so
 * that a result in the subnormal range rounds once instead of twice; -0 at
 * x = -inf (the limit), not inf * 0 */
TSR_INLINE tsr_vec tsr_vx_sigmoid(tsr_vec x, tsr_ivec negative, tsr_vec scaled) {
  const tsr_vec e = scaled * 0x1p-64f;
  const tsr_vec tiny = (x * scaled) * 0x1p-64f;
  const tsr_vec num = tsr_select(negative, tsr_select(x == -INFINITY, (tsr_vec)-0.0f, tiny), x);
  return tsr_vdiv_one_plus(num, e);
}
TSR_INLINE tsr_vec tsr_vsilu(tsr_vec x) {
  return tsr_vx_sigmoid(x, x < 0.0f, tsr_vexp_scaled(-__builtin_elementwise_abs(x), 64));
}
/* 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3), with
 * z = 2u as two f32 (or in f64 without FMA) so that its rounding is not
 * amplified by e^-|z|: z = x (c1 + c2 x^2), c1 = 2 sqrt(2/pi) and
 * c2 = c1 0.044715 each split into two f32, the sum by Knuth's TwoSum */
TSR_INLINE tsr_vec tsr_vgelu_tanh(tsr_vec x) {
#if TSR_HAVE_FMA
  const float c1 = 1.59576917f, c1_lo = -4.53406803e-08f, c2 = 0.0713548139f, c2_lo = 2.39883240e-09f;
  tsr_vec x2_lo, p_lo;
  const tsr_vec x2 = tsr_vmul_exact(x, x, &x2_lo);
  const tsr_vec p = tsr_vmul_exact((tsr_vec)c2, x2, &p_lo);
  const tsr_vec t = c1 + p, v = t - c1;
  const tsr_vec t_lo = ((c1 - (t - v)) + (p - v)) + (p_lo + c2 * x2_lo + c2_lo * x2 + c1_lo);
  tsr_vec z_lo;
  const tsr_vec z = tsr_vmul_exact(x, t, &z_lo);
  z_lo = z_lo + x * t_lo;
  const tsr_ivec negative = z < 0.0f;
  const tsr_vec scaled = tsr_vexp_dd(-__builtin_elementwise_abs(z), tsr_select(negative, z_lo, -z_lo), 64);
  return tsr_vx_sigmoid(x, negative, scaled);
#else
  const tsr_dvec xd = __builtin_convertvector(x, tsr_dvec);
  const tsr_dvec z = xd * (1.5957691216057308 + 0.07135481627260025 * (xd * xd));
  const tsr_vec scaled = tsr_vexp_wide(44.3614195558365 - __builtin_elementwise_abs(z));   /* e^-|z| 2^64 */
  return tsr_vx_sigmoid(x, __builtin_convertvector(z < 0.0, tsr_ivec), scaled);
#endif
}
#endif

/* tanh: |x| < 0.625: x + x^3 P(x^2); above: (1 - e) / (1 + e) with
 * e = e^-2|x|, which is 1 from |x| ~ 9 on; the sign copied last (tanh(-0) = -0) */
static const float tsr_tanh_p[6] = {2.292744815e-03f, -8.343945257e-03f, 2.176891826e-02f,
                                    -5.395925790e-02f, 1.333330423e-01f, -3.333333433e-01f};
TSR_INLINE tsr_vec tsr_vtanh(tsr_vec x) {
  const tsr_vec a = __builtin_elementwise_abs(x);
  const tsr_ivec small = a < 0.625f;
  tsr_vec t = 0.0f;
  if (tsr_any(small)) {
    const tsr_vec z = a * a;
    t = a + a * z * tsr_vhorner(z, tsr_tanh_p, 6);
  }
  if (tsr_any(~small)) {   /* (1 - e) / (1 + e), e = e^-2|x| <= 0.29: 1 - e has no cancellation */
    const tsr_vec e = tsr_vexp(-(a + a));
    t = tsr_select(small, t, tsr_vdiv_one_plus(1.0f - e, e));
  }
  return tsr_copysign(t, x);
}

/* erf(x) = x P(x^2) for |x| <= 1; tsr_verf_near adds the leading term
 * 2/sqrt(pi) x last, its coefficient split in two f32 (hi + lo); erf is
 * odd, so the sign is x's (erf(-0) = -0) */
static const float tsr_erf_p[7] = {7.875874871e-05f, -8.016864303e-04f, 5.189087242e-03f, -2.685421146e-02f,
                                   1.128359437e-01f, -3.761262596e-01f, 1.128379107e+00f};
TSR_INLINE tsr_vec tsr_verf_near(tsr_vec x) {
  const tsr_vec z = x * x;
  return tsr_copysign(x * 1.128379226e+00f + x * (-5.863538277e-08f + z * tsr_vhorner(z, tsr_erf_p, 6)), x);
}
/* erfc(a) e^(a^2): for a in [0.5, 2] a polynomial in a - 1.25; above, F(1/a^2) / a */
#if TSR_MATH_16 == 8   /* bf16 outputs: degree 8 and 6, relative error 2^-21.9 and 2^-21.6 */
static const float tsr_erfc_mid[9] = {5.485283327e-04f, -1.551859546e-03f, 3.520814935e-03f,
                                      -8.983534761e-03f, 2.201646753e-02f, -5.023378506e-02f,
                                      1.067953557e-01f, -2.088212222e-01f, 3.678229153e-01f};
static const float tsr_erfc_far[7] = {3.730369568e+00f, -4.286973953e+00f, 2.368741751e+00f, -9.665259123e-01f,
                                      4.198128879e-01f, -2.820461094e-01f, 5.641894341e-01f};
#else
static const float tsr_erfc_mid[12] = {-2.035736543e-05f, 6.407439651e-05f, -1.609979372e-04f, 4.674357479e-04f,
                                       -1.326362835e-03f, 3.555042669e-03f, -9.081550874e-03f, 2.201110683e-02f,
                                       -5.021827668e-02f, 1.067955866e-01f, -2.088218778e-01f, 3.678229153e-01f};
static const float tsr_erfc_far[9] = {3.263976288e+01f, -4.366052246e+01f, 2.676665878e+01f,
                                      -1.050842953e+01f, 3.291680813e+00f, -1.040774226e+00f,
                                      4.227630198e-01f, -2.820914090e-01f, 5.641895533e-01f};
#endif
/* erfc(a) 2^k for lanes with a >= 0.5 (others: unused values), given a^2
 * exactly as a2 + a2_lo: e^-(a2 + a2_lo) keeps the relative error small deep
 * into the tail (erfc underflows at a ~ 10) */
TSR_INLINE tsr_vec tsr_verfc_tail(tsr_vec a, tsr_vec a2, tsr_vec a2_lo, int32_t k) {
  const tsr_vec mid = tsr_vhorner(a - 1.25f, tsr_erfc_mid, sizeof tsr_erfc_mid / sizeof(float));
#if TSR_MATH_16   /* 1/a from tsr_vrecip and one Newton step instead of two divisions */
  const tsr_vec ac = tsr_select(a < 1e18f, a, (tsr_vec)1e18f);   /* inf and NaN: the exp factor decides */
  tsr_vec ia = tsr_vrecip(ac);
  ia = tsr_vfma(ia, tsr_vfma(-ac, ia, (tsr_vec)1.0f), ia);
  const tsr_vec far = tsr_vhorner(ia * ia, tsr_erfc_far, sizeof tsr_erfc_far / sizeof(float)) * ia;
#else
  const tsr_vec far = tsr_vhorner(1.0f / (a * a), tsr_erfc_far, sizeof tsr_erfc_far / sizeof(float)) / a;
#endif
  return tsr_vexp_dd(-a2, -a2_lo, k) * tsr_select(a < 2.0f, mid, far);
}
TSR_INLINE tsr_vec tsr_verf(tsr_vec x) {
  const tsr_vec a = __builtin_elementwise_abs(x);
  const tsr_ivec near = a <= 1.0f;
  tsr_vec r = 0.0f;
  if (tsr_any(near)) r = tsr_verf_near(x);
  if (tsr_any(~near)) {
    tsr_vec a2_lo;
    const tsr_vec a2 = tsr_vmul_exact(a, a, &a2_lo);
    r = tsr_select(near, r, tsr_copysign(1.0f - tsr_verfc_tail(a, a2, a2_lo, 0), x));
  }
  return r;
}
/* 0.5 x (1 + erf(t)), t = x / sqrt 2: 1 + erf(t) directly for t in [-0.5, 1];
 * above, 2 - erfc(t); below, 0.5 x erfc(-t), tiny, with |t|^2 = x^2 / 2 exact
 * as two f32 and erfc taken scaled by 2^64 (as in tsr_vx_sigmoid) */
TSR_INLINE tsr_vec tsr_vgelu_erf(tsr_vec x) {
  const tsr_vec t = x * 0.70710678118654752f;
  const tsr_ivec near = (t >= -0.5f) & (t <= 1.0f);
  tsr_vec y = 0.0f;
  if (tsr_any(near)) y = 0.5f * x * (1.0f + t * tsr_vhorner(t * t, tsr_erf_p, 7));
  if (tsr_any(~near)) {
    tsr_vec x2_lo;
    const tsr_vec x2 = tsr_vmul_exact(x, x, &x2_lo);   /* t^2 = x^2 / 2 exactly */
    const tsr_vec c = tsr_verfc_tail(__builtin_elementwise_abs(t), 0.5f * x2, 0.5f * x2_lo, 64);
    const tsr_vec far = tsr_select(t > 0.0f, 0.5f * x * (2.0f - c * 0x1p-64f), ((0.5f * x) * c) * 0x1p-64f);
    y = tsr_select(near, y, far);
  }
  return tsr_select(x == -INFINITY, (tsr_vec)-0.0f, y);
}

/* ln x = k ln2 + ln(1 + f), x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)),
 * ln(1 + f) = f - f^2/2 + f^3 P(f); ln2 split as in tsr_vexp. Subnormal x is
 * scaled by 2^23 first; ln 0 = -inf, ln of a negative is NaN, ln inf = inf */
static const float tsr_log_p[9] = {6.971611828e-02f, -1.147973388e-01f, 1.168541983e-01f,
                                   -1.242568716e-01f, 1.424905807e-01f, -1.666780263e-01f,
                                   2.000071555e-01f, -2.499999702e-01f, 3.333333135e-01f};
TSR_INLINE tsr_vec tsr_vlog(tsr_vec x) {
  const tsr_ivec subnormal = x < 0x1p-126f;
  const tsr_ivec bits = (tsr_ivec)tsr_select(subnormal, x * 0x1p23f, x);
  const tsr_ivec k = (bits - 0x3f3504f3) >> 23;
  const tsr_vec f = (tsr_vec)(bits - (k << 23)) - 1.0f;
  const tsr_vec e = __builtin_convertvector(k, tsr_vec) - tsr_select(subnormal, (tsr_vec)23.0f, (tsr_vec)0.0f);
  const tsr_vec f2 = f * f;
  const tsr_vec y = f2 * f * tsr_vhorner(f, tsr_log_p, 9) + e * -2.12194440e-4f - 0.5f * f2;
  tsr_vec r = (f + y) + e * 0.693359375f;
  r = tsr_select(x == INFINITY, x, r);
  r = tsr_select(x == 0.0f, (tsr_vec)-INFINITY, r);
  return tsr_select((x < 0.0f) | (x != x), (tsr_vec)NAN, r);
}

/* relu keeps NaN like max(v, 0) in the reference */
TSR_INLINE tsr_vec tsr_vrelu(tsr_vec x) { return tsr_select(x < 0.0f, (tsr_vec)0.0f, x); }
TSR_INLINE tsr_vec tsr_vneg(tsr_vec x) { return -x; }
TSR_INLINE tsr_vec tsr_vabs(tsr_vec x) { return __builtin_elementwise_abs(x); }
/* 1 / sqrt(x) rounds twice (up to 1.5 ulp); with FMA one Newton step on the
 * exactly computed residual 1 - x y^2 (x y split into h + h_lo) brings it to
 * about half an ulp. x = +-0, inf and x < 0 leave the step NaN: y stands */
TSR_INLINE tsr_vec tsr_vrsqrt(tsr_vec x) {
  const tsr_vec y = 1.0f / tsr_vsqrt(x);
#if TSR_HAVE_FMA
  tsr_vec h_lo;
  const tsr_vec h = tsr_vmul_exact(x, y, &h_lo);
  const tsr_vec r = tsr_vfma(-h_lo, y, tsr_vfma(-h, y, (tsr_vec)1.0f));
  const tsr_vec refined = tsr_vfma(0.5f * y, r, y);
  return tsr_select(refined != refined, y, refined);
#else
  return y;
#endif
}
)";

}  // namespace

const char* vector_math_text() { return kVectorMath; }

}  // namespace tsr
