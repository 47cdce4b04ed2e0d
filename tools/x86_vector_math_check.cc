// The functions, references and compiled vector math of
// x86_vector_math_check.h.
//
// Why long double is enough: glibc's x86-64 expl, tanhl, erfl and erfcl are
// within a few ulp of the 64-bit significand (glibc's libm-test-ulps), about
// 2^-60 relative, so an f32 error is measured to within 2^-36 ulp.
#include "tools/x86_vector_math_check.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "registry/registry.h"
#include "support/file_io.h"
#include "x86/x86_internal.h"

namespace tsr::vector_math_check {
namespace {

constexpr long double kSqrt2OverPi = 0.797884560802865355879892119868763737L;

long double ref_sigmoid(long double x) {
  if (x >= 0) return 1 / (1 + expl(-x));
  const long double e = expl(x);
  return e / (1 + e);
}
long double ref_silu(long double x) { return std::isinf(x) ? (x > 0 ? x : -0.0L) : x * ref_sigmoid(x); }
long double ref_gelu_tanh(long double x) {   // x sigmoid(2u): no cancellation at large negative x
  if (std::isinf(x)) return x > 0 ? x : -0.0L;
  const long double z = 2 * kSqrt2OverPi * (x + 0.044715L * x * x * x);
  return z >= 0 ? x / (1 + expl(-z)) : x * expl(z) / (1 + expl(z));
}
long double ref_gelu_erf(long double x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0L;
  return 0.5L * x * erfcl(-x * 0.707106781186547524400844362104849039L);
}

Function op_function(Op op, Reference ref, double f32_ulp, int half_ulp) {
  return {op_name(op), x86::vector_unary_expr(op, "v"), ref, f32_ulp, half_ulp};
}

}  // namespace

const std::vector<Function>& functions() {
  // erf and log are no ops of the table (gelu_erf and log_softmax use them);
  // their bounds are asserted alike. The bounds are the largest error the
  // sweep over every f32 input found, rounded up (docs/targets-x86.md: exp,
  // silu, gelu_tanh and gelu_erf measured 1.02, 2.49, 2.79 and 4.77; issue 26
  // asks for 2 on the last three, which this math does not reach).
  static const std::vector<Function> fns = {
      op_function(Op::exp, [](long double x) { return expl(x); }, 1.05, 1),
      op_function(Op::tanh, [](long double x) { return tanhl(x); }, 1.5, 0),
      op_function(Op::sigmoid, ref_sigmoid, 2.0, 1),
      op_function(Op::silu, ref_silu, 2.5, 1),
      op_function(Op::gelu_tanh, ref_gelu_tanh, 2.8, 1),
      op_function(Op::gelu_erf, ref_gelu_erf, 4.8, 1),
      {"erf", "tsr_verf(v)", [](long double x) { return erfl(x); }, 2.0, 1},
      {"log", "tsr_vlog(v)", [](long double x) { return logl(x); }, 1.0, 1},
      op_function(Op::rsqrt, [](long double x) { return 1 / sqrtl(x); }, 1.5, 1),
      op_function(Op::sqrt, [](long double x) { return sqrtl(x); }, 0.5, 0),
      op_function(Op::abs, [](long double x) { return fabsl(x); }, 0.0, 0),
      op_function(Op::neg, [](long double x) { return -x; }, 0.0, 0),
      op_function(Op::relu, [](long double x) { return x < 0 ? 0.0L : x; }, 0.0, 0),
  };
  return fns;
}

const Function* find_function(const std::string& name) {
  for (const Function& f : functions())
    if (f.name == name) return &f;
  return nullptr;
}

double f32_ulp_error(float y, long double r) {
  if (std::isnan(r) || std::isnan(y)) return std::isnan(r) == std::isnan(y) ? 0 : INFINITY;
  const float rounded = static_cast<float>(r);
  if (std::isinf(rounded) || std::isinf(y)) return rounded == y ? 0 : INFINITY;
  if (r == 0) return y == 0 && std::signbit(y) == std::signbit(r) ? 0 : INFINITY;
  const long double ulp = ldexpl(1.0L, std::max(ilogbl(fabsl(r)), -126) - 23);
  return static_cast<double>(fabsl(static_cast<long double>(y) - r) / ulp);
}

Status check_runnable(const std::string& arch) {
  const Target* target = find_target("x86");
  if (!target || !target->toolchain().found) return unavailable("x86 toolchain (clang) not available");
  if (!x86::tier_for_arch(arch)) return unavailable("x86 has no tier '" + arch + "'");
  const DeviceInfo device = target->device(arch);
  if (!device.present) return unavailable("this CPU cannot run x86:" + arch + ": " + device.description);
  return ok();
}

Expected<void*> load_vector_math(const std::string& arch) {
  const std::optional<x86::Tier> tier = x86::tier_for_arch(arch);
  if (!tier) return unavailable("x86 has no tier '" + arch + "'");
  std::ostringstream src;
  src << "#include <math.h>\n#include <stdint.h>\n#include <immintrin.h>\n"
      << "#define TSR_INLINE static inline __attribute__((always_inline, unused))\n"
      << "#define TSR_VECTOR_FN __attribute__((min_vector_width(" << tier->vector_floats * 32 << ")))\n"
      << x86::emit_vector_math(*tier, DType::f32)
      << "#define EXPORT(name, expr) TSR_VECTOR_FN __attribute__((visibility(\"default\"))) void name(\\\n"
      << "    const float* x, float* y, int64_t n) {\\\n"
      << "  for (int64_t i = 0; i < n; i += VW) { const tsr_vec v = *(const tsr_uvec*)(x + i); *(tsr_uvec*)(y + i) = expr; } }\n";
  for (const Function& f : functions()) src << "EXPORT(test_" << f.name << ", " << f.vector_expr << ")\n";
  KernelSpec spec;
  spec.name = "vector_math_test";
  Expected<Artifact> art = x86::compile_sources(spec, *tier, tier->arch, {src.str()}, spec.name + "_tsr_entry");
  if (!art) return art.take_error();
  // A private directory: the unit test and the tool may run at once (ctest -j).
  Expected<ScratchDir> dir = ScratchDir::create("tesserac-vector-math");
  if (!dir) return dir.take_error();
  const std::string path = dir->path() + "/vector_math_" + arch + ".so";
  Status written = write_file(path, std::string(art->bytes.begin(), art->bytes.end()));
  if (!written) return written.take_error();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);   // the mapping outlives the file
  if (!handle) return internal_error(std::string("dlopen ") + path + ": " + dlerror());
  return handle;
}

VectorFn find_loop(void* handle, const std::string& name) {
  return reinterpret_cast<VectorFn>(dlsym(handle, ("test_" + name).c_str()));
}

}  // namespace tsr::vector_math_check
