// Expression text shared by the C-family emitters (x86 C, CUDA C++): the
// spelling of binary ops and of f32 constants is the same in both languages.
#pragma once

#include <string>

#include "spec/kernel_spec.h"

namespace tsr {

// "(a + b)", "fmaxf(a, b)", ... for the binary elementwise ops; "" otherwise.
std::string c_binary_expr(Op op, const std::string& a, const std::string& b);

// The C name of runtime scalar `index` (ABI order) in emitted code. Spec
// names never become C identifiers, so no spelling can collide with a
// keyword, a macro or a name of the generated code; comments carry the name.
std::string c_scalar_param(size_t index);
// The scalar parameter a runtime Dim is read through (empty for a static Dim).
std::string c_scalar_param(const KernelSpec& spec, const Dim& d);

// A finite value rounded to f32, as decimal digits that read back to the same
// float ("%.9g", with ".0" added when it would read as an integer).
std::string c_f32_digits(double v);

}  // namespace tsr
