#include "target/c_expr.h"

#include <algorithm>
#include <cstdio>

#include "spec/abi.h"

namespace tsr {

std::string c_binary_expr(Op op, const std::string& a, const std::string& b) {
  switch (op) {
    case Op::add: return "(" + a + " + " + b + ")";
    case Op::sub: return "(" + a + " - " + b + ")";
    case Op::mul: return "(" + a + " * " + b + ")";
    case Op::div: return "(" + a + " / " + b + ")";
    case Op::max: return "fmaxf(" + a + ", " + b + ")";
    case Op::min: return "fminf(" + a + ", " + b + ")";
    default: return "";
  }
}

std::string c_scalar_param(size_t index) { return "tsr_dim" + std::to_string(index); }

std::string c_scalar_param(const KernelSpec& spec, const Dim& d) {
  if (d.is_static()) return "";
  const std::vector<std::string> names = runtime_scalars(spec);
  return c_scalar_param(static_cast<size_t>(std::find(names.begin(), names.end(), d.name) - names.begin()));
}

std::string c_f32_digits(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace tsr
