// The typed, immutable result of validating a spec against its family codec.
// Every semantic field is explicit; codecs never fill in defaults for them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "support/source_location.h"

namespace tsr {

enum class Family { elementwise, matmul, rowwise, attention };
enum class DType { f32, f16, bf16 };
enum class Determinism { deterministic, nondeterministic_allowed };
enum class Layout { row, col };

// The closed elementwise op table (DESIGN.md §2). Binary ops consume the next
// input operand; unary ops transform the running value.
enum class Op {
  add, sub, mul, div, max, min,
  relu, gelu_tanh, gelu_erf, silu, sigmoid, tanh, exp, neg, abs, sqrt, rsqrt,
};

bool op_is_binary(Op op);
const char* op_name(Op op);
std::optional<Op> op_from_name(const std::string& name);
const std::vector<Op>& all_ops();

const char* family_name(Family f);
const char* dtype_name(DType d);
std::optional<DType> dtype_from_name(const std::string& name);
int dtype_size(DType d);
const char* layout_name(Layout l);

// A dimension is either a static extent or the name of a runtime int64 scalar.
struct Dim {
  int64_t value = 0;   // > 0 when static
  std::string name;    // non-empty when runtime
  bool is_static() const { return name.empty(); }
  std::string str() const { return is_static() ? std::to_string(value) : name; }
  bool operator==(const Dim&) const = default;
};

struct Accuracy {
  enum class Kind { reference_exact, tolerance_bounded };
  Kind kind = Kind::reference_exact;
  std::optional<double> atol;   // only for tolerance_bounded
  std::optional<double> rtol;
};

struct ElementwiseSpec {
  std::vector<Op> ops;   // first op binary or unary; inputs = 1 + #binary ops
  Dim n;
  int num_inputs() const;
};

struct EpilogueOp {
  enum class Kind { bias, residual, scale, clamp, activation };
  Kind kind = Kind::bias;
  Op activation = Op::relu;   // for Kind::activation (unary ops only)
  double scale = 1.0;         // for Kind::scale
  double lo = 0.0, hi = 0.0;  // for Kind::clamp
};

struct MatmulSpec {
  Dim m, n, k;
  Layout a = Layout::row, b = Layout::row;   // C is always row-major
  std::vector<EpilogueOp> epilogue;
  bool has_bias() const;
  bool has_residual() const;
};

enum class RowOp { softmax, log_softmax, rmsnorm, layernorm };
const char* row_op_name(RowOp op);

struct RowwiseSpec {
  RowOp op = RowOp::softmax;
  Dim rows, cols;
  std::optional<double> eps;   // rmsnorm, layernorm
  bool affine = false;         // rmsnorm: weight; layernorm: weight and bias
};

struct KernelSpec {
  int format_version = 1;
  std::string name;
  Family family = Family::elementwise;
  DType dtype = DType::f32;
  std::optional<DType> accumulate;   // matmul, rowwise
  Accuracy accuracy;
  Determinism determinism = Determinism::deterministic;
  std::vector<std::string> targets;  // empty: not restricted by the spec
  std::variant<ElementwiseSpec, MatmulSpec, RowwiseSpec> body;

  SourceLocation location;           // where `kernel:` was written
  std::string source_text;           // the spec file's text (load_specs), carried in archives for qualify

  const ElementwiseSpec& elementwise() const { return std::get<ElementwiseSpec>(body); }
  const MatmulSpec& matmul() const { return std::get<MatmulSpec>(body); }
  const RowwiseSpec& rowwise() const { return std::get<RowwiseSpec>(body); }
};

}  // namespace tsr
