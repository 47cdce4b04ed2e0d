// Elementwise family for x86 (System V AMD64 psABI; x86-64 levels v2-v4):
// one fused pass over the operands, f32 compute, one rounding at the store.
// Tasks are fixed-size chunks of elements (x86 kernel ABI v2).
#include <algorithm>
#include <sstream>

#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// Elements per task: enough to hide a task's dispatch, small enough to spread
// a bandwidth-bound pass over many cores. Fixed, so the split is the shape's.
constexpr int kTaskElements = 32768;

std::string pipeline_description(const ElementwiseSpec& e) {
  std::string s = "v = in0";
  int next = 1;
  for (Op op : e.ops) {
    if (op_is_binary(op)) s += std::string("; v = ") + op_name(op) + "(v, in" + std::to_string(next++) + ")";
    else s += std::string("; v = ") + op_name(op) + "(v)";
  }
  return s + "; out = v";
}

// The body of tsr_elements: out[i] for i in [i0, i1).
std::string element_loop(const KernelSpec& spec, const Tier& tier) {
  const ElementwiseSpec& e = spec.elementwise();
  std::ostringstream os;
  // F16C converts eight lanes per instruction only when the loop is written
  // in spans; the other dtypes vectorize as a plain per-element loop.
  if (!(spec.dtype == DType::f16 && tier.f16c)) {
    os << "  for (int64_t i = i0; i < i1; ++i) {\n"
       << "    float v = tsr_load(in0, i);\n";
    int next = 1;
    for (Op op : e.ops) {
      if (op_is_binary(op)) os << "    v = " << binary_expr(op, "v", "tsr_load(in" + std::to_string(next++) + ", i)") << ";\n";
      else os << "    v = " << unary_expr(op, "v") << ";\n";
    }
    os << "    tsr_store(out, i, v);\n  }\n";
    return os.str();
  }
  const bool binary = std::any_of(e.ops.begin(), e.ops.end(), op_is_binary);
  os << "  enum { CHUNK = 512 };\n"
     << (binary ? "  float v[CHUNK], t[CHUNK];\n" : "  float v[CHUNK];\n")
     << "  for (int64_t s = i0; s < i1; s += CHUNK) {\n"
     << "    const int64_t len = i1 - s < CHUNK ? i1 - s : CHUNK;\n"
     << "    tsr_load_span(v, in0 + s, len);\n";
  int next = 1;
  for (Op op : e.ops) {
    if (op_is_binary(op)) {
      os << "    tsr_load_span(t, in" << next++ << " + s, len);\n"
         << "    for (int64_t i = 0; i < len; ++i) v[i] = " << binary_expr(op, "v[i]", "t[i]") << ";\n";
    } else {
      os << "    for (int64_t i = 0; i < len; ++i) v[i] = " << unary_expr(op, "v[i]") << ";\n";
    }
  }
  os << "    tsr_store_span(out + s, v, len);\n  }\n";
  return os.str();
}

}  // namespace

std::string emit_elementwise(const KernelSpec& spec, const Tier& tier) {
  const ElementwiseSpec& e = spec.elementwise();
  std::ostringstream os;
  os << emit_prelude(spec, tier, "elementwise over n = " + e.n.str() + " elements: " + pipeline_description(e));
  os << "enum { TASK_ELEMENTS = " << kTaskElements << " }; /* elements per task, whatever the worker count */\n\n"
     << "/* out[i] for i in [i0, i1) */\n"
     << "static void tsr_elements(" << buffer_params(spec) << ", int64_t i0, int64_t i1) {\n"
     << element_loop(spec, tier) << "}\n\n"
     << emit_launch_struct(spec, "  int64_t dim_count;\n")
     << emit_range_task(spec, "dim_count", "TASK_ELEMENTS", "tsr_elements", "")
     << emit_entry_head(spec)
     << "  l.dim_count = " << dim_expr(spec, e.n) << ";\n"
     << "  if (l.dim_count <= 0) return;\n"
     << "  tsr_run(ctx, (l.dim_count + TASK_ELEMENTS - 1) / TASK_ELEMENTS, tsr_task, &l);\n"
     << "}\n\n"
     << emit_no_workspace(spec);
  return os.str();
}

}  // namespace tsr::x86
