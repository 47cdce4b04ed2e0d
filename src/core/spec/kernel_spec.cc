#include "spec/kernel_spec.h"

#include <algorithm>

namespace tsr {

namespace {
struct OpInfo {
  Op op;
  const char* name;
  bool binary;
};
constexpr OpInfo kOps[] = {
    {Op::add, "add", true},         {Op::sub, "sub", true},
    {Op::mul, "mul", true},         {Op::div, "div", true},
    {Op::max, "max", true},         {Op::min, "min", true},
    {Op::relu, "relu", false},      {Op::gelu_tanh, "gelu_tanh", false},
    {Op::gelu_erf, "gelu_erf", false}, {Op::silu, "silu", false},
    {Op::sigmoid, "sigmoid", false}, {Op::tanh, "tanh", false},
    {Op::exp, "exp", false},        {Op::neg, "neg", false},
    {Op::abs, "abs", false},        {Op::sqrt, "sqrt", false},
    {Op::rsqrt, "rsqrt", false},
};
}  // namespace

bool op_is_binary(Op op) { return kOps[static_cast<int>(op)].binary; }
const char* op_name(Op op) { return kOps[static_cast<int>(op)].name; }

std::optional<Op> op_from_name(const std::string& name) {
  for (const OpInfo& info : kOps)
    if (name == info.name) return info.op;
  return std::nullopt;
}

const std::vector<Op>& all_ops() {
  static const std::vector<Op> ops = [] {
    std::vector<Op> v;
    for (const OpInfo& info : kOps) v.push_back(info.op);
    return v;
  }();
  return ops;
}

const char* family_name(Family f) {
  switch (f) {
    case Family::elementwise: return "elementwise";
    case Family::matmul: return "matmul";
    case Family::rowwise: return "rowwise";
    case Family::attention: return "attention";
  }
  return "?";
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
  }
  return "?";
}

std::optional<DType> dtype_from_name(const std::string& name) {
  if (name == "f32") return DType::f32;
  if (name == "f16") return DType::f16;
  if (name == "bf16") return DType::bf16;
  return std::nullopt;
}

int dtype_size(DType d) { return d == DType::f32 ? 4 : 2; }

const char* layout_name(Layout l) { return l == Layout::row ? "row" : "col"; }

const char* attention_layout_name(AttentionLayout l) { return l == AttentionLayout::bshd ? "bshd" : "bhsd"; }

const char* row_op_name(RowOp op) {
  switch (op) {
    case RowOp::softmax: return "softmax";
    case RowOp::log_softmax: return "log_softmax";
    case RowOp::rmsnorm: return "rmsnorm";
    case RowOp::layernorm: return "layernorm";
  }
  return "?";
}

const char* epilogue_kind_name(EpilogueOp::Kind k) {
  switch (k) {
    case EpilogueOp::Kind::bias: return "bias";
    case EpilogueOp::Kind::residual: return "residual";
    case EpilogueOp::Kind::scale: return "scale";
    case EpilogueOp::Kind::clamp: return "clamp";
    case EpilogueOp::Kind::activation: return "activation";
  }
  return "?";
}

int ElementwiseSpec::num_inputs() const {
  return 1 + static_cast<int>(std::count_if(ops.begin(), ops.end(), op_is_binary));
}

bool MatmulSpec::has_bias() const {
  return std::any_of(epilogue.begin(), epilogue.end(),
                     [](const EpilogueOp& e) { return e.kind == EpilogueOp::Kind::bias; });
}

bool MatmulSpec::has_residual() const {
  return std::any_of(epilogue.begin(), epilogue.end(),
                     [](const EpilogueOp& e) { return e.kind == EpilogueOp::Kind::residual; });
}

}  // namespace tsr
