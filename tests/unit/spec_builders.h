// KernelSpec builders shared by the target unit tests (header-only, test code only).
#pragma once

#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "driver/spec_loading.h"
#include "support/diagnostics.h"

namespace tsr::spec_builders {

inline Dim rt(const std::string& name) { return Dim{0, name}; }
inline Dim st(int64_t v) { return Dim{v, ""}; }

inline KernelSpec base(const std::string& name, Family family, DType dtype) {
  KernelSpec s;
  s.name = name;
  s.family = family;
  s.dtype = dtype;
  if (family != Family::elementwise) s.accumulate = DType::f32;
  return s;
}

inline KernelSpec elementwise(const std::string& name, DType dtype, std::vector<Op> ops, Dim n) {
  KernelSpec s = base(name, Family::elementwise, dtype);
  s.body = ElementwiseSpec{std::move(ops), n};
  return s;
}

inline EpilogueOp epi(EpilogueOp::Kind kind, Op act = Op::relu) {
  EpilogueOp e;
  e.kind = kind;
  e.activation = act;
  e.scale = 0.5;
  e.lo = -2.0;
  e.hi = 3.0;
  return e;
}

inline KernelSpec matmul(const std::string& name, DType dtype, Dim m, Dim n, Dim k, Layout a, Layout b,
                         std::vector<EpilogueOp> epilogue = {}) {
  KernelSpec s = base(name, Family::matmul, dtype);
  MatmulSpec mm;
  mm.m = m, mm.n = n, mm.k = k, mm.a = a, mm.b = b, mm.epilogue = std::move(epilogue);
  s.body = mm;
  return s;
}

inline KernelSpec rowwise(const std::string& name, DType dtype, RowOp op, Dim rows, Dim cols, bool affine) {
  KernelSpec s = base(name, Family::rowwise, dtype);
  RowwiseSpec r;
  r.op = op, r.rows = rows, r.cols = cols, r.affine = affine;
  if (op == RowOp::rmsnorm || op == RowOp::layernorm) r.eps = 1e-5;
  s.body = r;
  return s;
}

// Every op, layout, epilogue kind and row op at least once, in every dtype
// where it matters, with static and runtime dimensions.
inline std::vector<KernelSpec> coverage_specs() {
  using K = EpilogueOp::Kind;
  std::vector<KernelSpec> v;
  const DType dtypes[] = {DType::f32, DType::f16, DType::bf16};
  for (DType t : dtypes) {
    const std::string sfx = std::string("_") + dtype_name(t);
    v.push_back(elementwise("ew_binary" + sfx, t, {Op::add, Op::sub, Op::mul, Op::div, Op::max, Op::min}, rt("n")));
    v.push_back(elementwise("ew_unary" + sfx, t,
                            {Op::relu, Op::gelu_tanh, Op::gelu_erf, Op::silu, Op::sigmoid, Op::tanh, Op::exp,
                             Op::neg, Op::abs, Op::sqrt, Op::rsqrt},
                            st(1001)));
    for (Layout a : {Layout::row, Layout::col})
      for (Layout b : {Layout::row, Layout::col}) {
        const std::string name = std::string("mm_") + layout_name(a) + layout_name(b) + sfx;
        v.push_back(matmul(name, t, rt("M"), st(96), rt("K"), a, b,
                           {epi(K::bias), epi(K::residual), epi(K::scale), epi(K::clamp), epi(K::activation, Op::silu)}));
      }
    v.push_back(matmul("mm_static" + sfx, t, st(33), st(17), st(9), Layout::row, Layout::row));
    v.push_back(rowwise("softmax" + sfx, t, RowOp::softmax, rt("rows"), rt("cols"), false));
    v.push_back(rowwise("log_softmax" + sfx, t, RowOp::log_softmax, st(7), st(1000), false));
    v.push_back(rowwise("rmsnorm" + sfx, t, RowOp::rmsnorm, rt("rows"), st(4096), true));
    v.push_back(rowwise("layernorm" + sfx, t, RowOp::layernorm, rt("rows"), rt("cols"), true));
    v.push_back(rowwise("layernorm_plain" + sfx, t, RowOp::layernorm, st(3), st(5), false));
  }
  return v;
}

// The shipped specs in specs/, decoded by the real loader.
inline std::vector<KernelSpec> shipped_specs(std::string* errors) {
  DiagnosticEngine diag;
  std::vector<KernelSpec> specs = load_specs({std::string(TSR_SOURCE_DIR) + "/specs"}, diag);
  if (errors) *errors = diag.render();
  return specs;
}

}  // namespace tsr::spec_builders
