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
/* tsr_row_sum_exp's sum, in its lane order, with e[j] = exp(x[j] - mx) kept (e 64-byte aligned) */
TSR_VECTOR_FN TSR_HELPER float tsr_row_exp_into(const tsr_storage* restrict x, int64_t n, float mx, float* restrict e) {
  tsr_vec a0 = 0.0f, a1 = 0.0f;
  int64_t i = 0;
  for (; i + 2 * VW <= n; i += 2 * VW) {
    const tsr_vec e0 = tsr_vexp(tsr_load_vec(x + i) - mx), e1 = tsr_vexp(tsr_load_vec(x + i + VW) - mx);
    *(tsr_vec*)(e + i) = e0;
    *(tsr_vec*)(e + i + VW) = e1;
    a0 += e0;
    a1 += e1;
  }
  for (; i < n; i += VW) {
    const tsr_vec e0 = tsr_vexp(tsr_load_partial(x + i, n - i < VW ? n - i : VW, -INFINITY) - mx);
    *(tsr_vec*)(e + i) = e0;   /* e has room: n <= TSR_ROW_SCRATCH, a multiple of VW */
    a0 += e0;
  }
  return tsr_hsum(a0 + a1);
}
/* up to VW f32 from p, missing lanes 0 */
TSR_INLINE tsr_vec tsr_f32_partial(const float* p, int64_t count) {
  tsr_vec v = 0.0f;
  for (int64_t l = 0; l < count; ++l) v[l] = p[l];
  return v;
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
     << "#define TSR_ROW_SCRATCH 4096 /* softmax rows up to this many columns keep their exponentials */\n"
     << emit_vector_io(spec, tier) << rowwise_vector_helpers(tier) << kReductions;
  os << "enum { TASK_ELEMENTS = " << kTaskElements << " }; /* about this many elements per task (whole rows) */\n\n"
     << emit_rows_function(spec, tier, {"tsr_rows", "tsr_store_vec", "tsr_stream_vec", ""});
  if (uses_bf16cvt(spec, tier)) {
    // The same pass with VCVTNEPS2BF16 stores where the CPU has AVX512-BF16 (the same bits).
    os << emit_rows_function(spec, tier, {"tsr_rows_cvt", "tsr_store_vec_cvt", "tsr_stream_vec_cvt",
                                          "__attribute__((target(\"avx512bf16\"))) "})
       << emit_bf16cvt_dispatch("tsr_rows",
                                buffer_params(spec) + ", int64_t row0, int64_t row1, int64_t dim_cols, int stream",
                                buffer_args(spec) + "row0, row1, dim_cols, stream");
  } else {
    os << "#define tsr_rows_any tsr_rows\n\n";
  }
  os
     << emit_launch_struct(spec, "  int64_t dim_cols, dim_rows, rows_per_task;\n  int stream;\n")
     << emit_range_task(spec, "dim_rows", "l->rows_per_task", "tsr_rows_any", ", l->dim_cols, l->stream")
     << emit_entry_head(spec, choice.entry_suffix)
     << "  l.dim_rows = " << dim_expr(spec, r.rows) << ";\n"
     << "  l.dim_cols = " << dim_expr(spec, r.cols) << ";\n"
     << "  if (l.dim_rows <= 0 || l.dim_cols <= 0) return;   /* an empty y: nothing to do */\n"
     << "  /* a launch moving more than TSR_STREAM_BYTES (x read, y written) leaves y out of the\n"
     << "   * caches anyway: write it with non-temporal stores, saving the read-for-ownership of\n"
     << "   * every line */\n"
     << "  l.stream = (uintptr_t)l.y % sizeof(tsr_storage) == 0 &&\n"
     << "             2 * (uint64_t)l.dim_rows * (uint64_t)l.dim_cols * sizeof(tsr_storage) > TSR_STREAM_BYTES;\n"
     << "  l.rows_per_task = l.dim_cols < TASK_ELEMENTS ? TASK_ELEMENTS / l.dim_cols : 1;\n"
     << "  tsr_run(ctx, (l.dim_rows + l.rows_per_task - 1) / l.rows_per_task, tsr_task, &l);\n"
     << "}\n\n"
     << emit_no_workspace(spec, choice.entry_suffix);
  return os.str();
}

}  // namespace tsr::x86
