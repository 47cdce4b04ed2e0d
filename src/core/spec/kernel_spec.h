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
// Where a candidate's code comes from; it is the candidate's tier (docs/spec-format.md "Candidates").
enum class Provenance { vendor_library, hand_tuned };

struct TargetName;   // src/backends/target/target.h (which includes this header)

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
const char* provenance_name(Provenance p);
const char* determinism_name(Determinism d);

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

// "bias", "residual", "scale", "clamp", "activation".
const char* epilogue_kind_name(EpilogueOp::Kind k);

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

// attention (docs/spec-format.md "attention"): O = softmax(mask(scale·Q·Kᵀ)) V
// per (batch, query head), a query head reading KV head h / (q_heads / kv_heads).
enum class AttentionLayout { bshd, bhsd };
const char* attention_layout_name(AttentionLayout l);

struct AttentionWindow {
  int64_t left = 0, right = 0;   // keys [i + off - left, i + off + right] (off = kv_len - q_len)
  bool operator==(const AttentionWindow&) const = default;
};

struct AttentionSpec {
  Dim batch, q_heads, kv_heads, q_len, kv_len, head_dim, v_head_dim;   // heads and head dims static
  AttentionLayout layout = AttentionLayout::bshd;
  bool causal = false;                     // key j <= i + off (bottom-right aligned)
  std::optional<AttentionWindow> window;   // sliding window, combinable with causal
  bool scale_default = false;              // `scale: default`: 1/sqrt(head_dim)
  double scale = 1.0;                      // the f32 the logits are multiplied by (resolved when default)
  std::optional<double> softcap;           // logits -> c * tanh(logits / c)
  bool alibi = false;                      // input alibi_slopes[q_heads] (f32)
  bool lse = false;                        // output lse[batch, q_heads, q_len] (f32)
  int64_t group() const { return q_heads.value / kv_heads.value; }   // query heads per KV head
};

// A spec's `candidates:` entries (docs/spec-format.md "Candidates"): code the
// arbiter may choose instead of the generated kernel, each judged by the
// oracle with its own declared budget.
struct KernelCallCandidate {
  std::string callee;          // a delegate of the closed table (delegate/delegate_table.h)
  std::string arch;            // "x86" (every x86 arch) or "x86:v3"; "cuda" or "cuda:sm_90"
  std::string binding;         // "c_abi" | "cuda_kernel"
  Provenance provenance = Provenance::vendor_library;
  Accuracy accuracy;           // YAML keys: kind, tolerance (-> atol), tolerance_rel (-> rtol)
  Determinism determinism = Determinism::deterministic;
};

struct InlinePtxCandidate {
  std::string ptx, constraints, arch;
  Accuracy accuracy;
  Determinism determinism = Determinism::deterministic;
  bool has_side_effects = false;
};

struct Candidate {
  enum class Kind { kernel_call, inline_ptx };
  Kind kind = Kind::kernel_call;
  KernelCallCandidate call;    // kind == kernel_call
  InlinePtxCandidate ptx;      // kind == inline_ptx
  SourceLocation location;     // the list item
  int ptx_index = 0;           // 1-based among the spec's inline_ptx candidates (kind == inline_ptx)

  const std::string& arch() const;
  const Accuracy& accuracy() const;
  Determinism determinism() const;
  // kernel_call: the callee; inline_ptx: "inline_ptx.<i>" (1-based among inline_ptx).
  std::string name() const;
  // arch is the target's kind ("x86") or its full name ("x86:v3").
  bool applies_to(const TargetName& t) const;
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
  std::vector<Candidate> candidates; // spec order; empty: only generated kernels
  std::variant<ElementwiseSpec, MatmulSpec, RowwiseSpec, AttentionSpec> body;

  SourceLocation location;           // where `kernel:` was written
  std::string source_text;           // the spec file's text (load_specs), carried in archives for qualify

  const ElementwiseSpec& elementwise() const { return std::get<ElementwiseSpec>(body); }
  const MatmulSpec& matmul() const { return std::get<MatmulSpec>(body); }
  const RowwiseSpec& rowwise() const { return std::get<RowwiseSpec>(body); }
  const AttentionSpec& attention() const { return std::get<AttentionSpec>(body); }
};

}  // namespace tsr
