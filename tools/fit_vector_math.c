// Derives the polynomial coefficients of src/backends/x86/x86_vector_math.cc (all but
// Cephes' exp): Chebyshev interpolation of a function in MPFR at 256 bits,
// converted to monomials and rounded to f32, then the f32 Horner evaluation
// checked against MPFR on a dense grid (largest relative error, in 2^-24).
// A development tool, not built by CMake; needs libmpfr-dev, which
// packaging/install-deps.sh does not install (nothing else uses MPFR):
//   cc -O2 tools/fit_vector_math.c -o fit -lmpfr -lgmp -lm
//   ./fit FUNCTION A B DEGREE [CENTER]
// The coefficients in the emitter came from:
//   ./fit tanh 0 0.390625 5         tanh(x) = x + x^3 P(x^2), |x| < 0.625
//   ./fit erf 0 1 6                 erf(x) = x P(x^2), |x| <= 1
//   ./fit qc -0.75 0.75 11 1.25     erfc(a) e^(a^2) for a in [0.5, 2], in a - 1.25
//   ./fit tail 0 0.25 8             a erfc(a) e^(a^2) in w = 1/a^2, a >= 2
//   ./fit log -0.29289321881 0.41421356237 8   (ln(1+f) - f + f^2/2) / f^3
//   ./fit exp -0.34657359 0.34657359 3   (e^r - 1 - r) / r^2, |r| <= ln2/2 (16-bit outputs)
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#define PREC 256
typedef void (*fn_t)(mpfr_t out, const mpfr_t z);
static mpfr_t tmp1, tmp2, tmp3;
// erf: P(z) = erf(sqrt z)/sqrt z
static void f_erf(mpfr_t o, const mpfr_t z) {
  if (mpfr_zero_p(z)) { mpfr_const_pi(o, MPFR_RNDN); mpfr_sqrt(o, o, MPFR_RNDN); mpfr_ui_div(o, 2, o, MPFR_RNDN); return; }
  mpfr_sqrt(tmp1, z, MPFR_RNDN); mpfr_erf(o, tmp1, MPFR_RNDN); mpfr_div(o, o, tmp1, MPFR_RNDN);
}
// tanh: (tanh(s) - s)/(z s), s = sqrt z
static void f_tanh(mpfr_t o, const mpfr_t z) {
  if (mpfr_zero_p(z)) { mpfr_set_si(o,-1,MPFR_RNDN); mpfr_div_ui(o,o,3,MPFR_RNDN); return; }
  mpfr_sqrt(tmp1, z, MPFR_RNDN); mpfr_tanh(o, tmp1, MPFR_RNDN); mpfr_sub(o, o, tmp1, MPFR_RNDN);
  mpfr_mul(tmp2, z, tmp1, MPFR_RNDN); mpfr_div(o, o, tmp2, MPFR_RNDN);
}
// erfcx middle: Q(s) = erfc(s) exp(s^2), variable s directly
static void f_q(mpfr_t o, const mpfr_t s) {
  mpfr_erfc(o, s, MPFR_RNDN); mpfr_sqr(tmp1, s, MPFR_RNDN); mpfr_exp(tmp1, tmp1, MPFR_RNDN); mpfr_mul(o, o, tmp1, MPFR_RNDN);
}
// tail: F(w) = s erfcx(s), w = 1/s^2 (w = 0 -> 1/sqrt(pi))
static void f_tail(mpfr_t o, const mpfr_t w) {
  if (mpfr_zero_p(w)) { mpfr_const_pi(o, MPFR_RNDN); mpfr_sqrt(o, o, MPFR_RNDN); mpfr_ui_div(o, 1, o, MPFR_RNDN); return; }
  mpfr_ui_div(tmp3, 1, w, MPFR_RNDN); mpfr_sqrt(tmp3, tmp3, MPFR_RNDN); f_q(o, tmp3); mpfr_mul(o, o, tmp3, MPFR_RNDN);
}
static double center = 0;
static void f_qc(mpfr_t o, const mpfr_t y) { mpfr_add_d(tmp2, y, center, MPFR_RNDN); f_q(o, tmp2); }
static void f_log(mpfr_t o, const mpfr_t f) {
  if (mpfr_zero_p(f)) { mpfr_set_ui(o, 1, MPFR_RNDN); mpfr_div_ui(o, o, 3, MPFR_RNDN); return; }
  mpfr_log1p(o, f, MPFR_RNDN); mpfr_sub(o, o, f, MPFR_RNDN); mpfr_sqr(tmp1, f, MPFR_RNDN); mpfr_div_ui(tmp1, tmp1, 2, MPFR_RNDN);
  mpfr_add(o, o, tmp1, MPFR_RNDN); mpfr_pow_ui(tmp1, f, 3, MPFR_RNDN); mpfr_div(o, o, tmp1, MPFR_RNDN);
}
// exp: P(r) = (e^r - 1 - r) / r^2, so e^r = 1 + r + r^2 P(r) (the 16-bit outputs' exp)
static void f_exp(mpfr_t o, const mpfr_t r) {
  if (mpfr_zero_p(r)) { mpfr_set_d(o, 0.5, MPFR_RNDN); return; }
  mpfr_expm1(o, r, MPFR_RNDN); mpfr_sub(o, o, r, MPFR_RNDN); mpfr_sqr(tmp1, r, MPFR_RNDN); mpfr_div(o, o, tmp1, MPFR_RNDN);
}
int main(int argc, char** argv) {
  if (argc > 5) center = atof(argv[5]);
  const char* which = argv[1]; double a = atof(argv[2]), b = atof(argv[3]); int deg = atoi(argv[4]);
  fn_t f = !strcmp(which,"erf") ? f_erf : !strcmp(which,"tanh") ? f_tanh : !strcmp(which,"log") ? f_log : !strcmp(which,"exp") ? f_exp : !strcmp(which,"q") ? f_q : !strcmp(which,"qc") ? f_qc : f_tail;
  mpfr_inits2(PREC, tmp1, tmp2, tmp3, (mpfr_ptr)0);
  int n = deg + 1;
  mpfr_t fx[64], c[64], x, t, pi;
  mpfr_inits2(PREC, x, t, pi, (mpfr_ptr)0);
  for (int i = 0; i < n; ++i) { mpfr_init2(fx[i], PREC); mpfr_init2(c[i], PREC); }
  mpfr_const_pi(pi, MPFR_RNDN);
  // nodes x_k = cos(pi (k+0.5)/n) on [-1,1]
  for (int k = 0; k < n; ++k) {
    mpfr_set_d(t, k + 0.5, MPFR_RNDN); mpfr_mul(t, t, pi, MPFR_RNDN); mpfr_div_ui(t, t, n, MPFR_RNDN); mpfr_cos(t, t, MPFR_RNDN);
    // map to [a,b]
    mpfr_mul_d(x, t, (b - a) / 2, MPFR_RNDN); mpfr_add_d(x, x, (a + b) / 2, MPFR_RNDN);
    f(fx[k], x);
  }
  // Chebyshev coefficients c_j = 2/n sum f(x_k) T_j(t_k)
  for (int j = 0; j < n; ++j) {
    mpfr_set_zero(c[j], 1);
    for (int k = 0; k < n; ++k) {
      mpfr_set_d(t, (k + 0.5) * j, MPFR_RNDN); mpfr_mul(t, t, pi, MPFR_RNDN); mpfr_div_ui(t, t, n, MPFR_RNDN); mpfr_cos(t, t, MPFR_RNDN);
      mpfr_mul(t, t, fx[k], MPFR_RNDN); mpfr_add(c[j], c[j], t, MPFR_RNDN);
    }
    mpfr_mul_d(c[j], c[j], 2.0 / n, MPFR_RNDN);
  }
  mpfr_div_ui(c[0], c[0], 2, MPFR_RNDN);
  // to monomials in t: T_j polynomials, then substitute t = (2x - (a+b))/(b-a)
  static mpfr_t T[64][64], pt[64], px[64];
  for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) { mpfr_init2(T[i][j], PREC); mpfr_set_zero(T[i][j], 1); }
  for (int i = 0; i < n; ++i) { mpfr_init2(pt[i], PREC); mpfr_set_zero(pt[i], 1); mpfr_init2(px[i], PREC); mpfr_set_zero(px[i], 1); }
  mpfr_set_ui(T[0][0], 1, MPFR_RNDN); if (n > 1) mpfr_set_ui(T[1][1], 1, MPFR_RNDN);
  for (int j = 2; j < n; ++j) for (int i = 0; i < n; ++i) {
    if (i > 0) mpfr_mul_ui(t, T[j-1][i-1], 2, MPFR_RNDN); else mpfr_set_zero(t, 1);
    mpfr_sub(T[j][i], t, T[j-2][i], MPFR_RNDN);
  }
  for (int j = 0; j < n; ++j) for (int i = 0; i < n; ++i) { mpfr_mul(t, c[j], T[j][i], MPFR_RNDN); mpfr_add(pt[i], pt[i], t, MPFR_RNDN); }
  // t = alpha x + beta, alpha = 2/(b-a), beta = -(a+b)/(b-a); expand sum pt_i (alpha x + beta)^i
  double alpha = 2 / (b - a), beta = -(a + b) / (b - a);
  mpfr_t binom, term; mpfr_inits2(PREC, binom, term, (mpfr_ptr)0);
  for (int i = 0; i < n; ++i) for (int m = 0; m <= i; ++m) {
    // C(i,m) alpha^m beta^(i-m)
    { mpz_t bz; mpz_init(bz); mpz_bin_uiui(bz, i, m); mpfr_set_z(binom, bz, MPFR_RNDN); mpz_clear(bz); }
    mpfr_set_d(term, alpha, MPFR_RNDN); mpfr_pow_ui(term, term, m, MPFR_RNDN); mpfr_mul(binom, binom, term, MPFR_RNDN);
    mpfr_set_d(term, beta, MPFR_RNDN); mpfr_pow_ui(term, term, i - m, MPFR_RNDN); mpfr_mul(binom, binom, term, MPFR_RNDN);
    mpfr_mul(binom, binom, pt[i], MPFR_RNDN); mpfr_add(px[m], px[m], binom, MPFR_RNDN);
  }
  float cf[64];
  for (int i = 0; i < n; ++i) cf[i] = mpfr_get_flt(px[i], MPFR_RNDN);
  printf("%s [%g,%g] deg %d:", which, a, b, deg);
  for (int i = n - 1; i >= 0; --i) printf(" %.9ef", cf[i]);
  printf("\n");
  // check: float Horner vs MPFR, relative
  double maxrel = 0, at = 0;
  for (int k = 0; k <= 20000; ++k) {
    float xv = (float)(a + (b - a) * k / 20000.0);
    float p = cf[n - 1];
    for (int i = n - 2; i >= 0; --i) p = fmaf(p, xv, cf[i]);
    mpfr_set_flt(x, xv, MPFR_RNDN); f(t, x);
    double ref = mpfr_get_d(t, MPFR_RNDN);
    double rel = fabs((p - ref) / ref);
    if (rel > maxrel) { maxrel = rel; at = xv; }
  }
  printf("  max rel err %.3g (%.2f f32 ulp-ish, 2^-24 units) at %g\n", maxrel, maxrel / 0x1p-24, at);
}
