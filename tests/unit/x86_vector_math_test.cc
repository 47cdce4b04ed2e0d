// Accuracy of the x86 vector math (src/backends/x86/x86_vector_math.cc): the
// emitted functions, compiled per tier with the target's own clang flags,
// against an x87 long double reference, exhaustively over every f16 and every
// bf16 input and over every 2^13-th f32 bit pattern (1,024 per binade,
// with +-0, +-inf and NaN among them). The bounds asserted here are the table
// in docs/targets-x86.md, "Vector math".
//
// Why long double is enough: glibc's x86-64 expl, tanhl, erfl and erfcl are
// within a few ulp of the 64-bit significand (glibc's libm-test-ulps), about
// 2^-60 relative, so an f32 error is measured to within 2^-36 ulp, and a
// 16-bit reference is correctly rounded unless the exact value lies within
// 2^-60 of a 16-bit midpoint. Such inputs exist (silu(x) = x/2 + x^2/4 + ...
// for the tiniest x lies just above a midpoint, closer than long double
// resolves): there either neighbour of the midpoint is accepted. The
// functions, references, bounds and the compiled vector math are
// tools/x86_vector_math_check.h's, shared with tools/vector_math_exhaustive
// (every one of the 2^32 f32 inputs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "spec/half.h"
#include "tools/x86_vector_math_check.h"

namespace tsr {
namespace {

using vector_math_check::f32_ulp_error;
using vector_math_check::Function;
using vector_math_check::VectorFn;

// A 16-bit format: significand bits (with the implicit one) and the exponent range.
struct Half {
  const char* name;
  int precision;        // 11 for f16, 8 for bf16
  int min_exponent;     // of the smallest normal, 2^min_exponent
  int max_exponent;     // of the largest finite binade
  uint16_t (*from_f32)(float);
  float (*to_f32)(uint16_t);
};
const Half kF16 = {"f16", 11, -14, 15, f32_to_f16, f16_to_f32};
const Half kBf16 = {"bf16", 8, -126, 127, f32_to_bf16, bf16_to_f32};

// v rounded to nearest even in the format; `near_tie` set when v is within
// 2^-60 relative of a midpoint (the reference cannot decide those).
// v rounded to the format with `integer` (nearbyintl, floorl or ceill) applied
// to its significand in units of the format's quantum; overflow to inf.
float round_to_half(long double v, const Half& h, long double (*integer)(long double)) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return static_cast<float>(v);
  const long double a = fabsl(v);
  const int e = std::max(ilogbl(a), h.min_exponent);
  const long double quantum = ldexpl(1.0L, e - (h.precision - 1));
  long double r = integer(a / quantum) * quantum;
  if (r >= ldexpl(1.0L, h.max_exponent + 1)) r = INFINITY;
  return static_cast<float>(v < 0 ? -r : r);
}
// Whether v lies within 2^-60 (relative) of a midpoint of the format, where
// the reference cannot tell which way the exact value rounds.
bool near_midpoint(long double v, const Half& h) {
  if (!std::isfinite(v) || v == 0) return false;
  const long double a = fabsl(v);
  const long double quantum = ldexpl(1.0L, std::max(ilogbl(a), h.min_exponent) - (h.precision - 1));
  const long double scaled = a / quantum;
  return fabsl(scaled - floorl(scaled) - 0.5L) < ldexpl(scaled, -60);
}

// Distance in representable 16-bit values (+0 and -0 coincide); NaN only matches NaN.
long half_ulp_distance(uint16_t a, uint16_t b, const Half& h) {
  const bool nan_a = std::isnan(h.to_f32(a)), nan_b = std::isnan(h.to_f32(b));
  if (nan_a || nan_b) return nan_a == nan_b ? 0 : 1L << 20;
  auto ordered = [](uint16_t x) { return (x & 0x8000) ? -static_cast<long>(x & 0x7fff) : static_cast<long>(x); };
  return std::labs(ordered(a) - ordered(b));
}

struct Measured {
  double f32_ulp = 0;
  float f32_worst_input = 0;
  long half_ulp[2] = {0, 0};   // f16, bf16
  long near_ties = 0;
};

class X86VectorMath : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const Status runnable = vector_math_check::check_runnable(GetParam());
    if (!runnable) GTEST_SKIP() << runnable.error().message();
  }

  // The vector math of this tier plus one exported loop per function, compiled
  // once per tier and process.
  void* compile() {
    static std::map<std::string, void*> handles;
    if (handles.count(GetParam())) return handles[GetParam()];
    Expected<void*> h = vector_math_check::load_vector_math(GetParam());
    EXPECT_TRUE(h) << (h ? std::string() : h.error().message());
    return handles[GetParam()] = h ? *h : nullptr;
  }
};

std::vector<float> f32_samples() {
  std::vector<float> xs;
  for (uint64_t u = 0; u < (1ull << 32); u += 1u << 13) xs.push_back(f32_from_bits(static_cast<uint32_t>(u)));
  // Boundaries between paths and of the result's range, each with its neighbours.
  for (float b : {88.7228394f, 88.7228317f, -87.3365479f, -103.972084f, -103.278931f, 0.625f, 9.0f, 1.0f, 2.0f,
                  0.5f, -0.5f * 1.41421356f, 1.41421356f, -14.5f, -9.9f, 1e-30f, 0x1p-149f}) {
    for (float s : {b, -b}) {
      xs.push_back(s);
      xs.push_back(std::nextafter(s, INFINITY));
      xs.push_back(std::nextafter(s, -INFINITY));
    }
  }
  while (xs.size() % 16) xs.push_back(0.0f);
  return xs;
}

// f(x) in long double for each x, computed once per function and process.
const std::vector<long double>& references(const std::string& name, const Function& f,
                                           const std::vector<float>& xs, int set) {
  static std::map<std::pair<std::string, int>, std::vector<long double>> cache;
  std::vector<long double>& r = cache[{name, set}];
  if (r.empty())
    for (float x : xs) r.push_back(f.ref(x));
  return r;
}

Measured measure(VectorFn fn, const std::string& name, const Function& f) {
  Measured m;
  static const std::vector<float> xs = f32_samples();
  std::vector<float> ys(xs.size());
  fn(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
  const std::vector<long double>& rs = references(name, f, xs, 0);
  for (size_t i = 0; i < xs.size(); ++i) {
    const double e = f32_ulp_error(ys[i], rs[i]);
    if (!(e <= m.f32_ulp)) m.f32_ulp = e, m.f32_worst_input = xs[i];
  }
  const Half* halves[2] = {&kF16, &kBf16};
  for (int k = 0; k < 2; ++k) {
    const Half& h = *halves[k];
    std::vector<float> in(65536), out(65536);
    for (uint32_t b = 0; b < 65536; ++b) in[b] = h.to_f32(static_cast<uint16_t>(b));
    fn(in.data(), out.data(), 65536);
    const std::vector<long double>& refs = references(name, f, in, k + 1);
    for (uint32_t b = 0; b < 65536; ++b) {
      const long double r = refs[b];
      const uint16_t got = h.from_f32(out[b]);
      long d = half_ulp_distance(got, h.from_f32(round_to_half(r, h, nearbyintl)), h);
      if (near_midpoint(r, h)) {   // either neighbour may be the correctly rounded value
        ++m.near_ties;
        d = std::min(half_ulp_distance(got, h.from_f32(round_to_half(r, h, floorl)), h),
                     half_ulp_distance(got, h.from_f32(round_to_half(r, h, ceill)), h));
      }
      m.half_ulp[k] = std::max(m.half_ulp[k], d);
      const double e = f32_ulp_error(out[b], r);
      if (!(e <= m.f32_ulp)) m.f32_ulp = e, m.f32_worst_input = in[b];
    }
  }
  return m;
}

TEST_P(X86VectorMath, MaxUlpErrorWithinTheDocumentedBounds) {
  void* h = compile();
  ASSERT_NE(h, nullptr);
  for (const Function& f : vector_math_check::functions()) {
    const std::string& name = f.name;
    const VectorFn fn = vector_math_check::find_loop(h, name);
    ASSERT_NE(fn, nullptr) << name;
    const Measured m = measure(fn, name, f);
    // The measured maxima (the docs table is read from this line).
    std::printf("x86:%s %-9s f32 %.3f ulp (worst at %a)  f16 %ld ulp  bf16 %ld ulp  (%ld near-midpoint refs)\n",
                GetParam().c_str(), name.c_str(), m.f32_ulp, m.f32_worst_input, m.half_ulp[0], m.half_ulp[1],
                m.near_ties);
    EXPECT_LE(m.f32_ulp, f.f32_ulp) << name << " worst at " << m.f32_worst_input;
    EXPECT_LE(m.half_ulp[0], f.half_ulp) << name << " f16";
    EXPECT_LE(m.half_ulp[1], f.half_ulp) << name << " bf16";
  }
}

// Special values, exactly: limits at +-inf, NaN kept, signed zeros.
TEST_P(X86VectorMath, SpecialValuesAreExact) {
  void* h = compile();
  ASSERT_NE(h, nullptr);
  auto run = [&](const char* name, float x) {
    const VectorFn fn = vector_math_check::find_loop(h, name);
    float in[16], out[16];
    for (float& v : in) v = x;
    fn(in, out, 16);
    return out[0];
  };
  auto same = [](float a, float b) { return std::isnan(a) ? std::isnan(b) : f32_bits(a) == f32_bits(b); };
  struct Case { const char* fn; float x, want; };
  const float inf = INFINITY, nan = NAN;
  const Case cases[] = {
      {"exp", inf, inf},          {"exp", -inf, 0.0f},       {"exp", nan, nan},          {"exp", -0.0f, 1.0f},
      {"exp", 88.7228470f, inf},  {"exp", -104.0f, 0.0f},    {"exp", -103.2789f, 0x1p-149f},     {"tanh", -0.0f, -0.0f},    {"tanh", inf, 1.0f},        {"tanh", -inf, -1.0f},
      {"tanh", nan, nan},         {"tanh", -20.0f, -1.0f},   {"erf", -0.0f, -0.0f},      {"erf", inf, 1.0f},
      {"erf", -inf, -1.0f},       {"erf", nan, nan},         {"sigmoid", inf, 1.0f},     {"sigmoid", -inf, 0.0f},
      {"sigmoid", -0.0f, 0.5f},   {"sigmoid", nan, nan},     {"silu", -inf, -0.0f},      {"silu", inf, inf},
      {"silu", -0.0f, -0.0f},     {"silu", nan, nan},        {"gelu_tanh", -inf, -0.0f}, {"gelu_tanh", inf, inf},
      {"gelu_tanh", -0.0f, -0.0f}, {"gelu_tanh", nan, nan},  {"gelu_erf", -inf, -0.0f},  {"gelu_erf", inf, inf},
      {"gelu_erf", -0.0f, -0.0f}, {"gelu_erf", nan, nan},    {"rsqrt", 0.0f, inf},       {"rsqrt", -0.0f, -inf},
      {"rsqrt", inf, 0.0f},       {"rsqrt", -1.0f, nan},     {"sqrt", -0.0f, -0.0f},     {"relu", -0.0f, -0.0f},
      {"relu", nan, nan},         {"abs", -0.0f, 0.0f},      {"neg", 0.0f, -0.0f},      {"log", 0.0f, -inf},
      {"log", -0.0f, -inf},       {"log", -1.0f, nan},       {"log", inf, inf},          {"log", nan, nan},
      {"log", 1.0f, 0.0f},        {"log", 0x1p-149f, -103.2789307f},
  };
  for (const Case& c : cases) {
    const float got = run(c.fn, c.x);
    EXPECT_TRUE(same(got, c.want)) << c.fn << "(" << c.x << ") = " << got << " (" << std::hexfloat << got
                                   << "), want " << c.want;
  }
}

INSTANTIATE_TEST_SUITE_P(Tiers, X86VectorMath, ::testing::Values("v2", "v3", "v4"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace tsr
