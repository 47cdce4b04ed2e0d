// The per-row pass of the x86 rowwise family: the row's statistics (max and
// sum of exponentials, or the moments), then one output pass whose stores
// are aligned to the vector width after a short head. Emitted once per store
// flavour (x86_emit_rowwise.cc): the portable one, and for bf16 on v4 the one
// with VCVTNEPS2BF16 stores. softmax rows up to TSR_ROW_SCRATCH columns keep
// e^(x - max) in an f32 row on the stack, so each exponential is computed
// once (docs/performance.md, "Rowwise").
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// The output pass per op, as a vector expression over loads of x, weight, bias.
std::string output_expr(const RowwiseSpec& r, const std::string& x, const std::string& w, const std::string& b) {
  switch (r.op) {
    case RowOp::softmax: return "tsr_vexp(" + x + " - mx) * inv";
    case RowOp::log_softmax: return "(" + x + " - mx) - log_sum";
    case RowOp::rmsnorm: return x + " * inv" + (r.affine ? " * " + w : "");
    // Which elements take the head, full-vector or tail path depends on y's
    // address; an explicit FMA rounds alike on every path, where
    // -ffp-contract=fast may fuse `* w + b` on some paths only.
    case RowOp::layernorm:
      return r.affine ? "tsr_vfma((" + x + " - mean) * inv, " + w + ", " + b + ")" : "(" + x + " - mean) * inv";
  }
  return x;
}

std::string row_statistics(const RowwiseSpec& r) {
  std::ostringstream os;
  switch (r.op) {
    case RowOp::softmax:
      os << "    const float mx = tsr_row_max(xr, dim_cols);\n"
         << "    const int scratch = dim_cols <= TSR_ROW_SCRATCH;\n"
         << "    const float inv = 1.0f / (scratch ? tsr_row_exp_into(xr, dim_cols, mx, e_row)\n"
         << "                                      : tsr_row_sum_exp(xr, dim_cols, mx));\n";
      break;
    case RowOp::log_softmax:
      os << "    const float mx = tsr_row_max(xr, dim_cols);\n"
         << "    const float log_sum = tsr_vlog((tsr_vec)tsr_row_sum_exp(xr, dim_cols, mx))[0];\n";
      break;
    case RowOp::rmsnorm:
      os << "    const float inv = 1.0f / sqrtf(tsr_row_sum_sq(xr, dim_cols, 0.0f) / (float)dim_cols + "
         << float_literal(r.eps.value_or(0.0)) << ");\n";
      break;
    case RowOp::layernorm:
      os << "    const float mean = tsr_row_sum(xr, dim_cols) / (float)dim_cols;\n"
         << "    const float var = tsr_row_sum_sq(xr, dim_cols, mean) / (float)dim_cols;\n"
         << "    const float inv = 1.0f / sqrtf(var + " << float_literal(r.eps.value_or(0.0)) << ");\n";
      break;
  }
  return os.str();
}

// Head, full vectors (streamed or stored) and tail of one row's output.
std::string output_loop(const Tier& tier, const KernelSpec& spec, const RowStores& stores, const std::string& full,
                        const std::string& partial, const std::string& indent) {
  std::ostringstream os;
  const int align = tier.vector_floats * dtype_size(spec.dtype);
  os << indent << "int64_t i = 0;\n"
     << indent << "const int64_t head = (int64_t)((-(uintptr_t)yr & " << align - 1
     << ") / sizeof(tsr_storage));   /* elements up to a " << align << "-byte boundary */\n"
     << indent << "if (head > 0 && head < dim_cols) {\n"
     << indent << "  const int64_t rest = head;\n"
     << indent << "  tsr_store_partial(yr, " << partial << ", rest);\n"
     << indent << "  i = head;\n"
     << indent << "}\n"
     << indent << "if (stream) {\n"
     << indent << "  for (; i + VW <= dim_cols; i += VW) " << stores.stream << "(yr + i, " << full << ");\n"
     << indent << "} else {\n"
     << indent << "  for (; i + VW <= dim_cols; i += VW) " << stores.store << "(yr + i, " << full << ");\n"
     << indent << "}\n"
     << indent << "if (i < dim_cols) {\n"
     << indent << "  const int64_t rest = dim_cols - i;\n"
     << indent << "  tsr_store_partial(yr + i, " << partial << ", rest);\n"
     << indent << "}\n";
  return os.str();
}

}  // namespace

std::string emit_rows_function(const KernelSpec& spec, const Tier& tier, const RowStores& stores) {
  const RowwiseSpec& r = spec.rowwise();
  const bool softmax = r.op == RowOp::softmax;
  std::ostringstream os;
  os << "/* rows [row0, row1) of y */\n"
     << stores.attributes << "TSR_VECTOR_FN static void " << stores.name << "(" << buffer_params(spec)
     << ", int64_t row0, int64_t row1, int64_t dim_cols, int stream) {\n";
  if (softmax) os << "  float e_row[TSR_ROW_SCRATCH] __attribute__((aligned(64)));   /* e^(x - max) of one row */\n";
  os << "  for (int64_t row = row0; row < row1; ++row) {\n"
     << "    const tsr_storage* restrict xr = x + row * dim_cols;\n"
     << "    tsr_storage* restrict yr = y + row * dim_cols;\n"
     << row_statistics(r);
  const std::string full = output_expr(r, "tsr_load_vec(xr + i)", "tsr_load_vec(weight + i)", "tsr_load_vec(bias + i)");
  const std::string partial = output_expr(r, "tsr_load_partial(xr + i, rest, 0.0f)",
                                          "tsr_load_partial(weight + i, rest, 0.0f)",
                                          "tsr_load_partial(bias + i, rest, 0.0f)");
  if (softmax) {
    os << "    if (scratch) {   /* the exponentials are in e_row: scale them */\n"
       << output_loop(tier, spec, stores, "*(const tsr_uvec*)(e_row + i) * inv",
                      "tsr_f32_partial(e_row + i, rest) * inv", "      ")
       << "      continue;\n    }\n";
  }
  os << output_loop(tier, spec, stores, full, partial, "    ") << "  }\n"
     << "  if (stream) _mm_sfence();   /* order this task's streamed stores before the launch returns */\n"
     << "}\n\n";
  return os.str();
}

}  // namespace tsr::x86
