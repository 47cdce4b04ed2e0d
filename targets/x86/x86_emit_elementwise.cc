// Elementwise family for x86 (System V AMD64 psABI; x86-64 levels v2-v4):
// one fused pass over the operands, f32 compute, one rounding at the store.
#include <sstream>

#include "targets/x86/x86_internal.h"

namespace tsr::x86 {

namespace {

std::string pipeline_description(const ElementwiseSpec& e) {
  std::string s = "v = in0";
  int next = 1;
  for (Op op : e.ops) {
    if (op_is_binary(op)) s += std::string("; v = ") + op_name(op) + "(v, in" + std::to_string(next++) + ")";
    else s += std::string("; v = ") + op_name(op) + "(v)";
  }
  return s + "; out = v";
}

}  // namespace

std::string emit_elementwise(const KernelSpec& spec, const Tier& tier) {
  const ElementwiseSpec& e = spec.elementwise();
  std::ostringstream os;
  os << emit_prelude(spec, tier, "elementwise over n = " + e.n.str() + " elements: " + pipeline_description(e));
  os << emit_kernel_head(spec) << " {\n"
     << "  const int64_t dim_count = " << dim_expr(spec, e.n) << ";\n"
     << "  if (dim_count <= 0) return;\n";
  // F16C converts eight lanes per instruction only when the loop is written
  // in spans; the other dtypes vectorize as a plain per-element loop.
  const bool spans = spec.dtype == DType::f16 && tier.f16c;
  if (!spans) {
    os << "  for (int64_t i = 0; i < dim_count; ++i) {\n"
       << "    float v = tsr_load(in0, i);\n";
    int next = 1;
    for (Op op : e.ops) {
      if (op_is_binary(op)) {
        os << "    v = " << binary_expr(op, "v", "tsr_load(in" + std::to_string(next) + ", i)") << ";\n";
        ++next;
      } else {
        os << "    v = " << unary_expr(op, "v") << ";\n";
      }
    }
    os << "    tsr_store(out, i, v);\n  }\n}\n\n";
  } else {
    os << "  enum { CHUNK = 512 };\n"
       << "  float v[CHUNK], t[CHUNK];\n"
       << "  for (int64_t i0 = 0; i0 < dim_count; i0 += CHUNK) {\n"
       << "    const int64_t len = dim_count - i0 < CHUNK ? dim_count - i0 : CHUNK;\n"
       << "    tsr_load_span(v, in0 + i0, len);\n";
    int next = 1;
    for (Op op : e.ops) {
      if (op_is_binary(op)) {
        os << "    tsr_load_span(t, in" << next << " + i0, len);\n"
           << "    for (int64_t i = 0; i < len; ++i) v[i] = " << binary_expr(op, "v[i]", "t[i]") << ";\n";
        ++next;
      } else {
        os << "    for (int64_t i = 0; i < len; ++i) v[i] = " << unary_expr(op, "v[i]") << ";\n";
      }
    }
    os << "    tsr_store_span(out + i0, v, len);\n  }\n}\n\n";
  }
  os << emit_entry(spec);
  return os.str();
}

}  // namespace tsr::x86
