// Expression text shared by the C-family emitters (x86 C, CUDA C++): the
// spelling of binary ops and of f32 constants is the same in both languages.
#pragma once

#include <string>

#include "spec/kernel_spec.h"

namespace tsr {

// "(a + b)", "fmaxf(a, b)", ... for the binary elementwise ops; "" otherwise.
std::string c_binary_expr(Op op, const std::string& a, const std::string& b);

// A finite value rounded to f32, as decimal digits that read back to the same
// float ("%.9g", with ".0" added when it would read as an integer).
std::string c_f32_digits(double v);

}  // namespace tsr
