// Rowwise family for x86 (System V AMD64 psABI; x86-64 levels v2-v4):
// softmax, log_softmax, rmsnorm and layernorm over the last axis. Reductions
// run in f32 vector lanes (clang vector extensions, fixed lane order, so the
// result is deterministic); the output pass rounds once at the store. Tasks
// are blocks of whole rows (x86 kernel ABI v2).
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// Elements per task, rounded to whole rows: a fixed split, whatever the
// worker count, with enough work per task to hide its dispatch.
constexpr int kTaskElements = 32768;

// max and the horizontal sum of the row reductions (tsr_vfma is the vector math's).
std::string rowwise_vector_helpers(const Tier& tier) {
  std::ostringstream os;
  const char* max_intrinsic = tier.arch == "v4" ? "_mm512_max_ps" : tier.arch == "v3" ? "_mm256_max_ps" : "_mm_max_ps";
  const char* native = tier.arch == "v4" ? "__m512" : tier.arch == "v3" ? "__m256" : "__m128";
  os << "TSR_INLINE tsr_vec tsr_vmax(tsr_vec a, tsr_vec b) { return (tsr_vec)" << max_intrinsic << "((" << native
     << ")a, (" << native << ")b); }\n"
     << "TSR_INLINE float tsr_hsum(tsr_vec v) {\n"
     << "  float s = 0.0f;\n  for (int l = 0; l < VW; ++l) s += v[l];\n  return s;\n}\n\n";
  return os.str();
}

const char* kReductions = R"(/* row reductions: two vector accumulators, then a scalar tail */
TSR_VECTOR_FN TSR_HELPER float tsr_row_max(const tsr_storage* restrict x, int64_t n) {
  float mx = -INFINITY;
  int64_t i = 0;
  if (n >= VW) {
    tsr_vec m = tsr_load_vec(x);
    for (i = VW; i + VW <= n; i += VW) m = tsr_vmax(m, tsr_load_vec(x + i));
    for (int l = 0; l < VW; ++l) mx = m[l] > mx ? m[l] : mx;
  }
  for (; i < n; ++i) { float v = tsr_load(x, i); mx = v > mx ? v : mx; }
  return mx;
}
TSR_VECTOR_FN TSR_HELPER float tsr_row_sum(const tsr_storage* restrict x, int64_t n) {
  tsr_vec a0 = 0.0f, a1 = 0.0f;
  int64_t i = 0;
  for (; i + 2 * VW <= n; i += 2 * VW) { a0 += tsr_load_vec(x + i); a1 += tsr_load_vec(x + i + VW); }
  for (; i + VW <= n; i += VW) a0 += tsr_load_vec(x + i);
  float s = tsr_hsum(a0 + a1);
  for (; i < n; ++i) s += tsr_load(x, i);
  return s;
}
/* sum of (x - c)^2; c = 0 gives the sum of squares */
TSR_VECTOR_FN TSR_HELPER float tsr_row_sum_sq(const tsr_storage* restrict x, int64_t n, float c) {
  tsr_vec a0 = 0.0f, a1 = 0.0f;
  int64_t i = 0;
  for (; i + 2 * VW <= n; i += 2 * VW) {
    tsr_vec d0 = tsr_load_vec(x + i) - c, d1 = tsr_load_vec(x + i + VW) - c;
    a0 += d0 * d0;
    a1 += d1 * d1;
  }
  for (; i + VW <= n; i += VW) { tsr_vec d = tsr_load_vec(x + i) - c; a0 += d * d; }
  float s = tsr_hsum(a0 + a1);
  for (; i < n; ++i) { float d = tsr_load(x, i) - c; s += d * d; }
  return s;
}
/* sum of exp(x - mx); the tail lanes read as -inf, whose exp is 0 */
TSR_VECTOR_FN TSR_HELPER float tsr_row_sum_exp(const tsr_storage* restrict x, int64_t n, float mx) {
  tsr_vec a0 = 0.0f, a1 = 0.0f;
  int64_t i = 0;
  for (; i + 2 * VW <= n; i += 2 * VW) {
    a0 += tsr_vexp(tsr_load_vec(x + i) - mx);
    a1 += tsr_vexp(tsr_load_vec(x + i + VW) - mx);
  }
  for (; i < n; i += VW) a0 += tsr_vexp(tsr_load_partial(x + i, n - i < VW ? n - i : VW, -INFINITY) - mx);
  return tsr_hsum(a0 + a1);
}
)";

}  // namespace

std::string emit_rowwise(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice) {
  const RowwiseSpec& r = spec.rowwise();
  const bool layernorm = r.op == RowOp::layernorm;
  std::ostringstream desc;
  desc << row_op_name(r.op) << " over x[rows, cols] with rows = " << r.rows.str() << ", cols = " << r.cols.str();
  if (r.eps) desc << ", eps = " << float_literal(*r.eps);
  if (r.op == RowOp::rmsnorm || layernorm) desc << (r.affine ? ", affine" : ", no affine");
  std::ostringstream os;
  os << emit_prelude(spec, tier, desc.str(), choice.entry_suffix);
  os << "#define TSR_STREAM_BYTES (32u << 20) /* about one server last-level cache */\n"
     << emit_vector_io(spec, tier) << rowwise_vector_helpers(tier) << kReductions;
  // The output pass per op, as a vector expression over loads of x, weight, bias.
  auto output = [&](const std::string& x, const std::string& w, const std::string& b) -> std::string {
    switch (r.op) {
      case RowOp::softmax: return "tsr_vexp(" + x + " - mx) / sum";
      case RowOp::log_softmax: return "(" + x + " - mx) - log_sum";
      case RowOp::rmsnorm: return x + " * inv" + (r.affine ? " * " + w : "");
      // Which elements take the head, full-vector or tail path depends on y's
      // address; an explicit FMA rounds alike on every path, where
      // -ffp-contract=fast may fuse `* w + b` on some paths only.
      case RowOp::layernorm:
        return r.affine ? "tsr_vfma((" + x + " - mean) * inv, " + w + ", " + b + ")" : "(" + x + " - mean) * inv";
    }
    return x;
  };
  os << "enum { TASK_ELEMENTS = " << kTaskElements << " }; /* about this many elements per task (whole rows) */\n\n"
     << "/* rows [row0, row1) of y */\n"
     << "TSR_VECTOR_FN static void tsr_rows(" << buffer_params(spec)
     << ", int64_t row0, int64_t row1, int64_t dim_cols, int stream) {\n"
     << "  for (int64_t row = row0; row < row1; ++row) {\n"
     << "    const tsr_storage* restrict xr = x + row * dim_cols;\n"
     << "    tsr_storage* restrict yr = y + row * dim_cols;\n";
  switch (r.op) {
    case RowOp::softmax:
      os << "    const float mx = tsr_row_max(xr, dim_cols);\n"
         << "    const float sum = tsr_row_sum_exp(xr, dim_cols, mx);\n";
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
  const std::string full_output =
      output("tsr_load_vec(xr + i)", "tsr_load_vec(weight + i)", "tsr_load_vec(bias + i)");
  const std::string partial_output = output("tsr_load_partial(xr + i, rest, 0.0f)",
                                            "tsr_load_partial(weight + i, rest, 0.0f)",
                                            "tsr_load_partial(bias + i, rest, 0.0f)");
  // Full-width stores that straddle cache lines are slow (rmsnorm on rows at
  // a 16-byte offset ran at 0.6-0.75x the bandwidth loop), so a short head
  // brings the output to vector alignment first. Prefetching the next row and
  // fusing its reduction into this pass measured no better.
  os << "    /* output pass, stores aligned to the vector width after a short head */\n"
     << "    int64_t i = 0;\n"
     << "    const int64_t head = (int64_t)((-(uintptr_t)yr & " << tier.vector_floats * dtype_size(spec.dtype) - 1
     << ") / sizeof(tsr_storage));   /* elements up to a " << tier.vector_floats * dtype_size(spec.dtype)
     << "-byte boundary */\n"
     << "    if (head > 0 && head < dim_cols) {\n"
     << "      const int64_t rest = head;\n"
     << "      tsr_store_partial(yr, " << partial_output << ", rest);\n"
     << "      i = head;\n"
     << "    }\n"
     << "    if (stream) {\n"
     << "      for (; i + VW <= dim_cols; i += VW) tsr_stream_vec(yr + i, " << full_output << ");\n"
     << "    } else {\n"
     << "      for (; i + VW <= dim_cols; i += VW) tsr_store_vec(yr + i, " << full_output << ");\n"
     << "    }\n"
     << "    if (i < dim_cols) {\n"
     << "      const int64_t rest = dim_cols - i;\n"
     << "      tsr_store_partial(yr + i, " << partial_output << ", rest);\n"
     << "    }\n";
  os << "  }\n"
     << "  if (stream) _mm_sfence();   /* order this task's streamed stores before the launch returns */\n"
     << "}\n\n"
     << emit_launch_struct(spec, "  int64_t dim_cols, dim_rows, rows_per_task;\n  int stream;\n")
     << emit_range_task(spec, "dim_rows", "l->rows_per_task", "tsr_rows", ", l->dim_cols, l->stream")
     << emit_entry_head(spec, choice.entry_suffix)
     << "  l.dim_rows = " << dim_expr(spec, r.rows) << ";\n"
     << "  l.dim_cols = " << dim_expr(spec, r.cols) << ";\n"
     << "  if (l.dim_rows <= 0 || l.dim_cols <= 0) return;   /* an empty y: nothing to do */\n"
     << "  /* an output larger than TSR_STREAM_BYTES would leave the caches anyway: write it\n"
     << "   * with non-temporal stores, saving the read-for-ownership of every line */\n"
     << "  l.stream = (uintptr_t)l.y % sizeof(tsr_storage) == 0 &&\n"
     << "             (uint64_t)l.dim_rows * (uint64_t)l.dim_cols * sizeof(tsr_storage) > TSR_STREAM_BYTES;\n"
     << "  l.rows_per_task = l.dim_cols < TASK_ELEMENTS ? TASK_ELEMENTS / l.dim_cols : 1;\n"
     << "  tsr_run(ctx, (l.dim_rows + l.rows_per_task - 1) / l.rows_per_task, tsr_task, &l);\n"
     << "}\n\n"
     << emit_no_workspace(spec, choice.entry_suffix);
  return os.str();
}

}  // namespace tsr::x86
