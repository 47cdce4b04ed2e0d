// What the accuracy checks of the x86 vector math share
// (src/backends/x86/x86_vector_math.cc, docs/targets-x86.md "Vector math"):
// the functions with their x87 long double references and asserted bounds,
// the f32 ulp error, and a tier's vector math compiled into a loaded shared
// object. Used by tests/unit/x86_vector_math_test.cc (a sample of inputs) and
// tools/vector_math_exhaustive.cc (all 2^32 f32 inputs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr::vector_math_check {

using Reference = long double (*)(long double);
// y[i] = f(x[i]) for i < n; n a multiple of 16 (every tier's vector width divides it).
using VectorFn = void (*)(const float* x, float* y, int64_t n);

struct Function {
  std::string name;          // the exported loop is test_<name>
  std::string vector_expr;   // the C expression on the tsr_vec `v` the loop applies
  Reference ref;
  double f32_ulp;            // bound on the f32 result's error, ulp of the exact value
  int half_ulp;              // bound on the f16 / bf16 result, ulp from the correctly rounded one
};

// Every function of the vector math with its asserted bounds (the table in
// docs/targets-x86.md): the transcendental ones first, then the bit
// operations abs, neg and relu (bound 0).
const std::vector<Function>& functions();
// The entry of functions() named `name`, or nullptr.
const Function* find_function(const std::string& name);

// Error of y in ulp of the exact value r (f32 ulp, subnormal quantum below
// 2^-126); infinite where one is NaN and the other not, where one rounds to
// inf and the other differs, and for a zero of the wrong sign or a nonzero y
// where r is zero.
double f32_ulp_error(float y, long double r);

// Whether this machine compiles and runs x86:<arch>: an unavailable Error
// saying why not (no clang, or the CPU lacks the tier's instructions).
Status check_runnable(const std::string& arch);

// The vector math of x86:<arch> plus one exported loop test_<name> per entry
// of functions(), compiled with the target's own clang flags and dlopen'd
// from a scratch directory removed once it is mapped; the handle stays open
// for the life of the process.
Expected<void*> load_vector_math(const std::string& arch);
// The loop test_<name> in a handle from load_vector_math, or nullptr.
VectorFn find_loop(void* handle, const std::string& name);

}  // namespace tsr::vector_math_check
