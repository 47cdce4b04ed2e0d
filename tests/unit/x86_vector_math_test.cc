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
// resolves): there either neighbour of the midpoint is accepted.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/file_io.h"
#include "spec/half.h"
#include "registry/registry.h"
#include "x86/x86_internal.h"

namespace tsr {
namespace {

using Reference = long double (*)(long double);
using VectorFn = void (*)(const float* x, float* y, int64_t n);

constexpr long double kSqrt2OverPi = 0.797884560802865355879892119868763737L;

long double ref_sigmoid(long double x) {
  if (x >= 0) return 1 / (1 + expl(-x));
  const long double e = expl(x);
  return e / (1 + e);
}
long double ref_gelu_tanh(long double x) {   // x sigmoid(2u): no cancellation at large negative x
  if (std::isinf(x)) return x > 0 ? x : -0.0L;
  const long double z = 2 * kSqrt2OverPi * (x + 0.044715L * x * x * x);
  return z >= 0 ? x / (1 + expl(-z)) : x * expl(z) / (1 + expl(z));
}
long double ref_gelu_erf(long double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0L;
  return 0.5L * x * erfcl(-x * 0.707106781186547524400844362104849039L);
}

struct Function {
  Op op;
  Reference ref;
  double f32_ulp;    // bound on the f32 result's error, ulp of the exact value
  int half_ulp;      // bound on the f16 / bf16 result, ulp from the correctly rounded one
};

// The asserted bounds; docs/targets-x86.md lists the measured maxima per tier.
const std::vector<Function>& functions() {
  static const std::vector<Function> fns = {
      {Op::exp, [](long double x) { return expl(x); }, 1.0, 1},
      {Op::tanh, [](long double x) { return tanhl(x); }, 1.5, 0},
      {Op::sigmoid, ref_sigmoid, 2.0, 1},
      {Op::silu, [](long double x) { return std::isinf(x) ? (x > 0 ? x : -0.0L) : x * ref_sigmoid(x); }, 2.5, 1},
      {Op::gelu_tanh, ref_gelu_tanh, 2.5, 1},
      {Op::gelu_erf, ref_gelu_erf, 4.0, 1},
      {Op::rsqrt, [](long double x) { return 1 / sqrtl(x); }, 1.5, 1},
      {Op::sqrt, [](long double x) { return sqrtl(x); }, 0.5, 0},
      {Op::abs, [](long double x) { return fabsl(x); }, 0.0, 0},
      {Op::neg, [](long double x) { return -x; }, 0.0, 0},
      {Op::relu, [](long double x) { return x < 0 ? 0.0L : x; }, 0.0, 0},
  };
  return fns;
}
// erf and log are no ops of the table (gelu_erf and log_softmax use them);
// their bounds are asserted alike.
const Function kErf = {Op::abs, [](long double x) { return erfl(x); }, 2.0, 1};
const Function kLog = {Op::abs, [](long double x) { return logl(x); }, 1.0, 1};

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

// Error of y in ulp of the exact value r (f32 ulp, subnormal quantum below 2^-126).
double f32_ulp_error(float y, long double r) {
  if (std::isnan(r) || std::isnan(y)) return std::isnan(r) == std::isnan(y) ? 0 : INFINITY;
  const float rounded = static_cast<float>(r);
  if (std::isinf(rounded) || std::isinf(y)) return rounded == y ? 0 : INFINITY;
  if (r == 0) return y == 0 && std::signbit(y) == std::signbit(r) ? 0 : INFINITY;
  const long double ulp = ldexpl(1.0L, std::max(ilogbl(fabsl(r)), -126) - 23);
  return static_cast<double>(fabsl(static_cast<long double>(y) - r) / ulp);
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
    const Target* target = find_target("x86");
    if (!target || !target->toolchain().found) GTEST_SKIP() << "x86 toolchain (clang) not available";
    const DeviceInfo device = target->device(GetParam());
    if (!device.present) GTEST_SKIP() << "this CPU cannot run x86:" << GetParam() << ": " << device.description;
  }

  // The vector math of this tier plus one exported loop per function, compiled
  // once per tier and process.
  void* compile() {
    static std::map<std::string, void*> handles;
    if (handles.count(GetParam())) return handles[GetParam()];
    const x86::Tier tier = *x86::tier_for_arch(GetParam());
    std::ostringstream src;
    src << "#include <math.h>\n#include <stdint.h>\n#include <immintrin.h>\n"
        << "#define TSR_INLINE static inline __attribute__((always_inline, unused))\n"
        << "#define TSR_VECTOR_FN __attribute__((min_vector_width(" << tier.vector_floats * 32 << ")))\n"
        << x86::emit_vector_math(tier, DType::f32)
        << "#define EXPORT(name, expr) TSR_VECTOR_FN __attribute__((visibility(\"default\"))) void name(\\\n"
        << "    const float* x, float* y, int64_t n) {\\\n"
        << "  for (int64_t i = 0; i < n; i += VW) { const tsr_vec v = *(const tsr_uvec*)(x + i); *(tsr_uvec*)(y + i) = expr; } }\n";
    for (const Function& f : functions())
      src << "EXPORT(test_" << op_name(f.op) << ", " << x86::vector_unary_expr(f.op, "v") << ")\n";
    src << "EXPORT(test_erf, tsr_verf(v))\nEXPORT(test_log, tsr_vlog(v))\n";
    KernelSpec spec;
    spec.name = "vector_math_test";
    Expected<Artifact> art = x86::compile_sources(spec, tier, tier.arch, {src.str()}, spec.name + "_tsr_entry");
    EXPECT_TRUE(art) << (art ? std::string() : art.error().message());
    if (!art) return nullptr;
    const std::string path = ::testing::TempDir() + "/vector_math_" + GetParam() + ".so";
    EXPECT_TRUE(write_file(path, std::string(art->bytes.begin(), art->bytes.end())).ok());
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(h, nullptr) << dlerror();
    std::remove(path.c_str());   // the mapping stays
    return handles[GetParam()] = h;
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
  std::vector<std::pair<std::string, Function>> all;
  for (const Function& f : functions()) all.emplace_back(op_name(f.op), f);
  all.emplace_back("erf", kErf);
  all.emplace_back("log", kLog);
  for (const auto& [name, f] : all) {
    auto fn = reinterpret_cast<VectorFn>(dlsym(h, ("test_" + name).c_str()));
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
    auto fn = reinterpret_cast<VectorFn>(dlsym(h, (std::string("test_") + name).c_str()));
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
