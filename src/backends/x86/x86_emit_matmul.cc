// Matmul family for x86 (System V AMD64 psABI; x86-64 levels v2-v4).
// GotoBLAS/BLIS structure (Goto & van de Geijn, "Anatomy of High-Performance
// Matrix Multiplication", TOMS 2008): B packed into NR-wide panels per column
// block, A packed into MR-high panels per (MC, KC) block, and a register-blocked
// MR x NR micro-kernel written with clang vector extensions. Packing converts
// f16/bf16 to f32 and absorbs the row/col layouts, so the micro-kernel sees
// one layout. Tails are zero-padded in the packed panels and masked at the
// store, where the epilogue runs on the f32 accumulator. Tasks (x86 kernel
// ABI v2) are the NR panels of packed B, then (MC rows x column tile) blocks
// of C; a C of one MC row block (skinny, e.g. decode) skips the shared B phase
// and its column-tile tasks pack their own B per KC block. Packing buffers
// live in the runtime's workspace, one slice per worker.
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

using Tiling = MatmulTiling;

// Row counts with their own micro-kernel below MR (powers of two): a panel
// of r rows runs the smallest one >= r.
std::vector<int> small_panel_rows(const Tiling& t) {
  std::vector<int> rows;
  for (int r = 1; r < t.mr; r *= 2) rows.push_back(r);
  return rows;
}

// A column block is split into tiles until it has Tiling::tasks_wanted tasks
// (a constant of the source, never the worker count), but no tile narrower
// than kTileMinPanels panels: each tile repacks its rows of A.
constexpr int kTileMinPanels = 8;

// Skinny C (M within one MC row block, the decode case): every element of B
// is used by one row block only, so packing all of B up front (the shared
// phase above) only adds a pass over it. Each task instead packs its own
// column tile one KC block at a time, read row-contiguously and kept within
// this many bytes (L2), and the tasks are the column tiles.
constexpr long kSkinnyBlockBytes = 256l << 10;

}  // namespace

// ---- shared with the AMX emitter (x86_emit_matmul_amx.cc): the epilogue path ----

// The epilogue of one tile row: runs of scalar ops per element of `row`
// (cols of them), each activation as a vector pass over the whole row (NR
// lanes: same code for every element, whatever the tile's width).
std::string epilogue_lines(const MatmulSpec& mm, const std::string& indent) {
  std::ostringstream os;
  bool open = false;   // inside a per-element loop
  for (const EpilogueOp& e : mm.epilogue) {
    if (e.kind == EpilogueOp::Kind::activation) {
      if (open) os << indent << "  row[j] = v;\n" << indent << "}\n";
      open = false;
      os << indent << vector_row_expr(e.activation, "row", "NR") << "\n";
      continue;
    }
    if (!open)
      os << indent << "for (int64_t j = 0; j < cols; ++j) {\n"
         << indent << "  const int64_t n = n0 + j;\n" << indent << "  float v = row[j];\n";
    open = true;
    switch (e.kind) {
      case EpilogueOp::Kind::bias: os << indent << "  v += tsr_load(bias, n);\n"; break;
      case EpilogueOp::Kind::residual: os << indent << "  v += tsr_load(residual, m * dim_n + n);\n"; break;
      case EpilogueOp::Kind::scale: os << indent << "  v *= " << float_literal(e.scale) << ";\n"; break;
      case EpilogueOp::Kind::clamp:
        os << indent << "  v = fminf(fmaxf(v, " << float_literal(e.lo) << "), " << float_literal(e.hi) << ");\n";
        break;
      case EpilogueOp::Kind::activation: break;
    }
  }
  if (open) os << indent << "  row[j] = v;\n" << indent << "}\n";
  return os.str();
}

std::string epilogue_description(const MatmulSpec& mm) {
  if (mm.epilogue.empty()) return "none";
  std::string s;
  for (const EpilogueOp& e : mm.epilogue) {
    if (!s.empty()) s += ", ";
    switch (e.kind) {
      case EpilogueOp::Kind::bias: s += "bias"; break;
      case EpilogueOp::Kind::residual: s += "residual"; break;
      case EpilogueOp::Kind::scale: s += "scale " + float_literal(e.scale); break;
      case EpilogueOp::Kind::clamp: s += "clamp " + float_literal(e.lo) + ".." + float_literal(e.hi); break;
      case EpilogueOp::Kind::activation: s += op_name(e.activation); break;
    }
  }
  return s;
}

// Parameters passed from the kernel to its static helpers for the epilogue operands.
std::string operand_params(const MatmulSpec& mm) {
  std::string s;
  if (mm.has_bias()) s += ", const tsr_storage* restrict bias";
  if (mm.has_residual()) s += ", const tsr_storage* restrict residual";
  return s;
}
std::string operand_args(const MatmulSpec& mm, const std::string& prefix) {
  std::string s;
  if (mm.has_bias()) s += ", " + prefix + "bias";
  if (mm.has_residual()) s += ", " + prefix + "residual";
  return s;
}

std::string emit_store_tile(const MatmulSpec& mm) {
  std::ostringstream os;
  os << "/* C[m0 : m0+rows, n0 : n0+cols] = epilogue(tile) rounded to storage */\n"
     << "TSR_VECTOR_FN static void tsr_store_tile(const float* restrict tile, tsr_storage* restrict c"
     << operand_params(mm)
     << ",\n                           int64_t m0, int64_t n0, int64_t rows, int64_t cols, int64_t dim_n) {\n"
     << "  for (int64_t i = 0; i < rows; ++i) {\n"
     << "    const int64_t m = m0 + i;\n"
     << "    float row[NR] __attribute__((aligned(64)));\n"
     << "    memcpy(row, tile + i * NR, sizeof row);\n"
     << epilogue_lines(mm, "    ")
     << "    for (int64_t j = 0; j < cols; ++j) tsr_store(c, m * dim_n + n0 + j, row[j]);\n"
     << "    (void)m;\n  }\n}\n\n";
  return os.str();
}

std::string emit_matmul_entry(const KernelSpec& spec, bool skinny_plan, const std::string& entry_suffix) {
  const MatmulSpec& mm = spec.matmul();
  std::ostringstream os;
  os << emit_entry_head(spec, entry_suffix)
     << "  l.dim_m = " << dim_expr(spec, mm.m) << ";\n"
     << "  l.dim_n = " << dim_expr(spec, mm.n) << ";\n"
     << "  l.dim_k = " << dim_expr(spec, mm.k) << ";\n"
     << "  /* an empty C returns at once; K = 0 still writes epilogue(0), the empty sum */\n"
     << "  if (l.dim_m <= 0 || l.dim_n <= 0) return;\n"
     << "  l.plan = tsr_make_plan(l.dim_m, l.dim_n, l.dim_k);\n"
     << "  l.bp = ctx->workspace;   /* packed B (f32, or the kernel's own packing) */\n"
     << "  l.worker_space = (char*)ctx->workspace + l.plan.bp_bytes;\n"
     << "  for (l.j0 = 0; l.j0 < l.dim_n; l.j0 += l.plan.nc_max) {\n"
     << "    l.nc = l.dim_n - l.j0 < l.plan.nc_max ? l.dim_n - l.j0 : l.plan.nc_max;\n"
     << "    l.ncpad = (l.nc + NR - 1) / NR * NR;\n"
     << "    l.tiles_n = (l.nc + l.plan.tile_n - 1) / l.plan.tile_n;\n"
     << (skinny_plan ? "    if (l.dim_k > 0 && !l.plan.skinny) tsr_run(ctx, l.ncpad / NR, tsr_pack_b_task, &l);\n"
                     : "    if (l.dim_k > 0) tsr_run(ctx, l.ncpad / NR, tsr_pack_b_task, &l);\n")
     << "    tsr_run(ctx, l.plan.m_blocks * l.tiles_n, tsr_block_task, &l);\n"
     << "  }\n"
     << "}\n\n";

  os << emit_workspace_head(spec, entry_suffix)
     << "  const int64_t dim_m = " << dim_expr(spec, mm.m) << ", dim_n = " << dim_expr(spec, mm.n)
     << ", dim_k = " << dim_expr(spec, mm.k) << ";\n"
     << "  if (dim_m <= 0 || dim_n <= 0) return 0;\n"
     << "  const tsr_plan p = tsr_make_plan(dim_m, dim_n, dim_k);\n"
     << "  return p.bp_bytes + (uint64_t)worker_count * p.worker_bytes;\n"
     << "}\n";
  return os.str();
}

// ---- end of the part shared with the AMX emitter ----

namespace {

// The micro-kernel for the first `rows` rows of an MR-row panel (rows < MR:
// tsr_micro_kernel_<rows>, for the last panel of a short C, where the full
// kernel would spend MR / rows times the FMAs on zero padding: M = 1 decode).
std::string micro_kernel(const Tiling& t, const Tier& tier, int rows) {
  std::ostringstream os;
  const int vw = tier.vector_floats;
  const std::string name = rows == t.mr ? "tsr_micro_kernel" : "tsr_micro_kernel_" + std::to_string(rows);
  if (rows == t.mr)
    os << "/* MR x NR micro-kernel: C_tile = C_in (or 0) + Ap_panel * Bp_panel over kc.\n"
       << " * Ap is MR floats per k, Bp is NR floats per k (both 64-byte aligned). */\n";
  else
    os << "/* the same for the first " << rows << " rows of the panel; the other rows of C_tile are not touched */\n";
  os << "TSR_VECTOR_FN static void " << name << "(int64_t kc, const float* restrict ap, const float* restrict bp,\n"
     << "                             const float* c_in, float* c_out) {\n";
  for (int i = 0; i < rows; ++i) {
    os << "  tsr_vec";
    for (int j = 0; j < t.nv; ++j) os << (j ? ", " : " ") << "c" << i << "_" << j;
    os << ";\n";
  }
  os << "  if (c_in) {\n";
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < t.nv; ++j)
      os << "    c" << i << "_" << j << " = *(const tsr_vec*)(c_in + " << i * t.nv * vw + j * vw << ");\n";
  os << "  } else {\n";
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < t.nv; ++j) os << "    c" << i << "_" << j << " = 0.0f;\n";
  os << "  }\n"
     << "#pragma clang loop unroll_count(4)\n"
     << "  for (int64_t k = 0; k < kc; ++k) {\n";
  for (int j = 0; j < t.nv; ++j)
    os << "    const tsr_vec b" << j << " = *(const tsr_vec*)(bp + " << j * vw << ");\n";
  for (int i = 0; i < rows; ++i) {
    os << "    {\n      const float a = ap[" << i << "];\n";
    for (int j = 0; j < t.nv; ++j) os << "      c" << i << "_" << j << " += a * b" << j << ";\n";
    os << "    }\n";
  }
  os << "    ap += MR;\n    bp += NR;\n  }\n";
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < t.nv; ++j)
      os << "  *(tsr_vec*)(c_out + " << i * t.nv * vw + j * vw << ") = c" << i << "_" << j << ";\n";
  os << "}\n\n";
  return os.str();
}

}  // namespace

std::string emit_matmul(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice) {
  const MatmulSpec& mm = spec.matmul();
  const Tiling& t = choice.tiling;
  const int nr = t.nv * tier.vector_floats;   // NR, also named in the emitted enum
  const bool a_row = mm.a == Layout::row, b_row = mm.b == Layout::row;
  std::ostringstream os;
  os << emit_prelude(spec, tier,
                     "C[M,N] = A[M,K] * B[K,N] with M = " + mm.m.str() + ", N = " + mm.n.str() +
                         ", K = " + mm.k.str() + "; layout a = " + layout_name(mm.a) + " (stored " +
                         (a_row ? "[M,K]" : "[K,M]") + "), b = " + layout_name(mm.b) + " (stored " +
                         (b_row ? "[K,N]" : "[N,K]") + "), C row-major; epilogue: " + epilogue_description(mm),
                     choice.entry_suffix);
  os << "enum { MR = " << t.mr << ", NR = " << nr << ", KC = " << t.kc
     << ", MC = " << t.mc << " }; /* micro-tile " << t.mr << " x " << nr << " */\n"
     << "enum { TASKS_WANTED = " << t.tasks_wanted << ", TILE_MIN_PANELS = " << kTileMinPanels
     << " }; /* tasks per column block to aim for; the narrowest column tile, in NR panels */\n"
     << "#define TSR_B_BUDGET_BYTES " << t.b_budget << "L /* packed B kept live per column block */\n"
     << "#define TSR_SKINNY_BLOCK_BYTES " << kSkinnyBlockBytes << "L /* a skinny task's packed KC block of B */\n\n";

  // Element accessors absorb the layouts.
  os << "/* A(m, k) and B(k, n) in storage order */\n"
     << "#define A_AT(m, k) ((int64_t)" << (a_row ? "(m) * dim_k + (k)" : "(k) * dim_m + (m)") << ")\n"
     << "#define B_AT(k, n) ((int64_t)" << (b_row ? "(k) * dim_n + (n)" : "(n) * dim_k + (k)") << ")\n\n";

  // Packing A: MR-row panels, k-major inside a panel, zero rows past mc.
  os << "/* pack A[i0 : i0+mc, p0 : p0+kc] into MR-row panels (f32, zero-padded) */\n"
     << "static void tsr_pack_a(float* restrict ap, const tsr_storage* restrict a, int64_t i0, int64_t mc,\n"
     << "                       int64_t p0, int64_t kc, int64_t dim_m, int64_t dim_k) {\n"
     << "  (void)dim_m;\n  (void)dim_k;   /* one of them is the leading dimension, per layout */\n"
     << "  for (int64_t ir = 0; ir < mc; ir += MR) {\n"
     << "    const int64_t rows = mc - ir < MR ? mc - ir : MR;\n"
     << "    float* restrict panel = ap + ir * kc;\n";
  if (a_row) {
    os << "    /* a full panel k by k over its MR rows: clang transposes it with shuffles, where\n"
       << "     * the row-by-row loop below stores through scatters (4096^3: 1.6x less packing) */\n"
       << "    if (rows == MR) {\n"
       << "      for (int64_t k = 0; k < kc; ++k)\n"
       << "        for (int64_t r = 0; r < MR; ++r) panel[k * MR + r] = tsr_load(a, A_AT(i0 + ir + r, p0 + k));\n"
       << "      continue;\n"
       << "    }\n"
       << "    for (int64_t r = 0; r < MR; ++r) {\n"
       << "      if (r < rows) {\n"
       << "        const int64_t m = i0 + ir + r;\n"
       << "        for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = tsr_load(a, A_AT(m, p0 + k));\n"
       << "      } else {\n"
       << "        for (int64_t k = 0; k < kc; ++k) panel[k * MR + r] = 0.0f;\n"
       << "      }\n"
       << "    }\n";
  } else {
    os << "    for (int64_t k = 0; k < kc; ++k) {\n"
       << "      int64_t r = 0;\n"
       << "      for (; r < rows; ++r) panel[k * MR + r] = tsr_load(a, A_AT(i0 + ir + r, p0 + k));\n"
       << "      for (; r < MR; ++r) panel[k * MR + r] = 0.0f;\n"
       << "    }\n";
  }
  os << "  }\n}\n\n";

  // Packing B: a KC block of a column range into NR-column panels. Row-major
  // B is read row by row across the whole range, so a skinny task streams
  // long contiguous spans of each row rather than one panel's 128 bytes.
  os << "/* pack B[p0 : p0+kc, col0 : col0+ncols] into NR-column panels (f32, zero-padded\n"
     << " * to a multiple of NR): panel q at dst + q * NR * kc, k-major inside */\n"
     << "static void tsr_pack_b_tile(float* restrict dst, const tsr_storage* restrict b, int64_t col0, int64_t ncols,\n"
     << "                            int64_t p0, int64_t kc, int64_t dim_n, int64_t dim_k) {\n"
     << "  (void)dim_n;\n  (void)dim_k;   /* one of them is the leading dimension, per layout */\n";
  if (b_row) {
    os << "  for (int64_t k = 0; k < kc; ++k) {\n"
       << "    /* rows lie dim_n apart: prefetch the span of the row 8 ahead, which the\n"
       << "     * hardware prefetchers do not guess across pages (M = 1: 1.3x) */\n"
       << "    if (p0 + k + 8 < dim_k)\n"
       << "      for (int64_t c = 0; c < ncols; c += 64 / (int64_t)sizeof(tsr_storage))\n"
       << "        __builtin_prefetch(b + B_AT(p0 + k + 8, col0 + c));\n"
       << "    for (int64_t jp = 0; jp < ncols; jp += NR) {\n"
       << "      float* restrict panel = dst + jp * kc + k * NR;\n"
       << "      const int64_t cols = ncols - jp < NR ? ncols - jp : NR;\n"
       << "      /* a full panel in a loop of constant trip count: vector moves, where the\n"
       << "       * variable-length loop became a memcpy call per 128 bytes */\n"
       << "      if (cols == NR) {\n"
       << "        for (int64_t c = 0; c < NR; ++c) panel[c] = tsr_load(b, B_AT(p0 + k, col0 + jp + c));\n"
       << "        continue;\n"
       << "      }\n"
       << "      int64_t c = 0;\n"
       << "      for (; c < cols; ++c) panel[c] = tsr_load(b, B_AT(p0 + k, col0 + jp + c));\n"
       << "      for (; c < NR; ++c) panel[c] = 0.0f;\n"
       << "    }\n"
       << "  }\n";
  } else {
    os << "  for (int64_t jp = 0; jp < ncols; jp += NR) {\n"
       << "    float* restrict panel = dst + jp * kc;\n"
       << "    const int64_t cols = ncols - jp < NR ? ncols - jp : NR;\n"
       << "    for (int64_t c = 0; c < NR; ++c) {\n"
       << "      if (c < cols) {\n"
       << "        for (int64_t k = 0; k < kc; ++k) panel[k * NR + c] = tsr_load(b, B_AT(p0 + k, col0 + jp + c));\n"
       << "      } else {\n"
       << "        for (int64_t k = 0; k < kc; ++k) panel[k * NR + c] = 0.0f;\n"
       << "      }\n"
       << "    }\n"
       << "  }\n";
  }
  os << "}\n\n";

  os << "/* pack panel jr of B[0 : K, j0 : j0+nc] into KC blocks;\n"
     << " * block p0 starts at bp + p0 * ncpad, panel jr inside it at + jr * kc */\n"
     << "static void tsr_pack_b(float* restrict bp, const tsr_storage* restrict b, int64_t j0, int64_t nc,\n"
     << "                       int64_t ncpad, int64_t jr, int64_t dim_n, int64_t dim_k) {\n"
     << "  const int64_t cols = nc - jr < NR ? nc - jr : NR;\n"
     << "  for (int64_t p0 = 0; p0 < dim_k; p0 += KC) {\n"
     << "    const int64_t kc = dim_k - p0 < KC ? dim_k - p0 : KC;\n"
     << "    tsr_pack_b_tile(bp + p0 * ncpad + jr * kc, b, j0 + jr, cols, p0, kc, dim_n, dim_k);\n"
     << "  }\n"
     << "}\n\n";

  os << micro_kernel(t, tier, t.mr);
  for (int rows : small_panel_rows(t)) os << micro_kernel(t, tier, rows);
  // Hook: bf16 on v4 calls the *_any helpers, which pick VDPBF16PS at run time;
  // on that path every panel takes the pair micro-kernel and no plan is skinny
  // (its packing is f32).
  const bool dot = uses_bf16dot(spec, tier);
  const std::string any = dot ? "_any" : "";
  if (dot) os << emit_bf16dot_helpers(spec, t.mr, t.nv);
  os << "typedef void (*tsr_micro_fn)(int64_t, const float*, const float*, const float*, float*);\n"
     << "/* the micro-kernel for a panel of `rows` rows: the smallest that covers them */\n"
     << "static tsr_micro_fn tsr_micro_for(int64_t rows) {\n";
  if (dot) os << "  if (tsr_bf16dot()) return tsr_micro_kernel_any;\n";
  for (int rows : small_panel_rows(t))
    os << "  if (rows <= " << rows << ") return tsr_micro_kernel_" << rows << ";\n";
  os << "  return tsr_micro_kernel;\n}\n\n";

  // Store of one finished tile through the epilogue.
  os << emit_store_tile(mm);

  // The split into tasks and the workspace layout, from the shape alone.
  os << "/* How a launch splits into tasks, from the shape alone: the split, and with it\n"
     << " * every output bit, is the same for any worker count and task order (each C\n"
     << " * element sums K in KC blocks, in order, whatever tile it falls in). */\n"
     << "typedef struct tsr_plan {\n"
     << "  int64_t nc_max;         /* columns of B packed at once: a multiple of NR */\n"
     << "  int64_t tile_n;         /* columns of C per task: a multiple of NR, <= nc_max */\n"
     << "  int64_t m_blocks;       /* MC-row blocks of C */\n"
     << "  int64_t k_blocks;       /* KC blocks of the K sum; 1 for K = 0 (the empty sum) */\n"
     << "  int skinny;             /* one row block: each task packs its own B, per KC block */\n"
     << "  uint64_t bp_bytes;      /* workspace: packed B of one column block, shared */\n"
     << "  uint64_t worker_bytes;  /* workspace per worker: packed A block, f32 partial sums,\n"
     << "                           * and for a skinny C its packed KC block of B */\n"
     << "} tsr_plan;\n\n"
     << "#define TSR_ROUND64(bytes) (((uint64_t)(bytes) + 63u) & ~(uint64_t)63u)\n"
     << "static tsr_plan tsr_make_plan(int64_t dim_m, int64_t dim_n, int64_t dim_k) {\n"
     << "  tsr_plan p;\n"
     << "  const int64_t k_rows = dim_k > 0 ? dim_k : 1;\n"
     << "  const int64_t n_pad = (dim_n + NR - 1) / NR * NR;\n"
     << "  p.m_blocks = (dim_m + MC - 1) / MC;\n"
     << "  p.k_blocks = dim_k > 0 ? (dim_k + KC - 1) / KC : 1;\n"
     << (!t.skinny_plan ? "  p.skinny = 0;   /* this candidate always packs all of B */\n"
      : dot          ? "  p.skinny = p.m_blocks == 1 && !tsr_bf16dot();   /* the pair path packs all of B */\n"
                     : "  p.skinny = p.m_blocks == 1;\n")
     << "  if (p.skinny) {\n"
     << "    /* one column block of all of N; tiles of TASKS_WANTED-th of it, no wider\n"
     << "     * than keeps a KC block of B within TSR_SKINNY_BLOCK_BYTES */\n"
     << "    const int64_t panels = n_pad / NR;\n"
     << "    int64_t tile_panels = (panels + TASKS_WANTED - 1) / TASKS_WANTED;\n"
     << "    const int64_t most = TSR_SKINNY_BLOCK_BYTES / ((int64_t)KC * NR * (int64_t)sizeof(float));\n"
     << "    if (tile_panels > most) tile_panels = most;\n"
     << "    p.nc_max = n_pad;\n"
     << "    p.tile_n = tile_panels * NR;\n"
     << "    p.bp_bytes = 0;\n"
     << "    p.worker_bytes = TSR_ROUND64(((uint64_t)MC * KC + (uint64_t)KC * p.tile_n +\n"
     << "                                  (p.k_blocks > 1 ? (uint64_t)MC * p.tile_n : 0)) * sizeof(float));\n"
     << "    return p;\n"
     << "  }\n"
     << "  /* column block: as many NR panels as keep packed B for all of K in budget */\n"
     << "  p.nc_max = TSR_B_BUDGET_BYTES / (k_rows * (int64_t)sizeof(float)) / NR * NR;\n"
     << "  if (p.nc_max < NR) p.nc_max = NR;\n"
     << "  if (p.nc_max > n_pad) p.nc_max = n_pad;\n"
     << "  /* few row blocks: split the columns too, so a many-core machine has work,\n"
     << "   * but keep tiles wide enough that repacking A per tile stays cheap */\n"
     << "  const int64_t panels = p.nc_max / NR;\n"
     << "  const int64_t split = p.m_blocks >= TASKS_WANTED ? 1 : (TASKS_WANTED + p.m_blocks - 1) / p.m_blocks;\n"
     << "  int64_t tile_panels = (panels + split - 1) / split;\n"
     << "  if (tile_panels < TILE_MIN_PANELS) tile_panels = TILE_MIN_PANELS;\n"
     << "  if (tile_panels > panels) tile_panels = panels;\n"
     << "  p.tile_n = tile_panels * NR;\n"
     << "  p.bp_bytes = TSR_ROUND64((uint64_t)k_rows * (uint64_t)p.nc_max * sizeof(float));\n"
     << "  p.worker_bytes = TSR_ROUND64(((uint64_t)MC * KC + (p.k_blocks > 1 ? (uint64_t)MC * p.tile_n : 0)) * sizeof(float));\n"
     << "  return p;\n"
     << "}\n\n";

  std::string fields = "  int64_t dim_m, dim_n, dim_k;\n"
                       "  tsr_plan plan;\n"
                       "  float* bp;             /* packed B of the current column block */\n"
                       "  char* worker_space;    /* plan.worker_bytes per worker */\n"
                       "  int64_t j0, nc, ncpad; /* the current column block */\n"
                       "  int64_t tiles_n;       /* column tiles in it */\n";
  os << emit_launch_struct(spec, fields);

  os << "/* task jr / NR: one NR-column panel of the current column block, all of K */\n"
     << "static void tsr_pack_b_task(void* arg, int64_t task, uint32_t worker) {\n"
     << "  const tsr_launch* l = (const tsr_launch*)arg;\n"
     << "  (void)worker;\n"
     << "  tsr_pack_b" << any << "(l->bp, l->b, l->j0, l->nc, l->ncpad, task * NR, l->dim_n, l->dim_k);\n"
     << "}\n\n";

  os << "/* task (row block, column tile): C[i0 : i0+mc, j0+jt : j0+jt+nt] over all of K,\n"
     << " * with the worker's own packed A and partial sums */\n"
     << "static void tsr_block_task(void* arg, int64_t task, uint32_t worker) {\n"
     << "  const tsr_launch* l = (const tsr_launch*)arg;\n"
     << "  const int64_t dim_m = l->dim_m, dim_n = l->dim_n, dim_k = l->dim_k;\n"
     << "  const int64_t i0 = task / l->tiles_n * MC, jt = task % l->tiles_n * l->plan.tile_n;\n"
     << "  const int64_t mc = dim_m - i0 < MC ? dim_m - i0 : MC;\n"
     << "  const int64_t nt = l->nc - jt < l->plan.tile_n ? l->nc - jt : l->plan.tile_n;\n"
     << "  float* ap = (float*)(l->worker_space + (uint64_t)worker * l->plan.worker_bytes);\n"
     << "  /* f32 partial sums between KC blocks (C may be 16-bit, and the epilogue runs once) */\n"
     << "  float* cw = l->plan.k_blocks > 1 ? ap + (int64_t)MC * KC : NULL;\n"
     << "  /* a skinny C's own packed KC block of B, after the partial sums */\n"
     << "  float* bw = ap + (int64_t)MC * KC + (cw ? (int64_t)MC * l->plan.tile_n : 0);\n"
     << "  float tile[MR * NR] __attribute__((aligned(64)));\n"
     << "  for (int64_t kb = 0; kb < l->plan.k_blocks; ++kb) {\n"
     << "    const int64_t p0 = kb * KC;\n"
     << "    const int64_t kc = dim_k - p0 < KC ? dim_k - p0 : KC;\n"
     << "    const int first = kb == 0, last = kb == l->plan.k_blocks - 1;\n"
     << "    tsr_pack_a" << any << "(ap, l->a, i0, mc, p0, kc, dim_m, dim_k);\n"
     << "    if (l->plan.skinny) tsr_pack_b_tile(bw, l->b, l->j0 + jt, nt, p0, kc, dim_n, dim_k);\n"
     << "    for (int64_t jr = jt; jr < jt + nt; jr += NR) {\n"
     << "      const float* b_panel = l->plan.skinny ? bw + (jr - jt) * kc : l->bp + p0 * l->ncpad + jr * kc;\n"
     << "      for (int64_t ir = 0; ir < mc; ir += MR) {\n"
     << "        const float* a_panel = ap + ir * kc;\n"
     << "        float* partial = cw ? cw + ((jr - jt) / NR * (MC / MR) + ir / MR) * (MR * NR) : NULL;\n"
     << "        const int64_t rows = mc - ir < MR ? mc - ir : MR;\n"
     << "        tsr_micro_fn micro = tsr_micro_for(rows);\n"
     << "        if (!last) {\n"
     << "          micro(kc, a_panel, b_panel, first ? NULL : partial, partial);\n"
     << "        } else {\n"
     << "          micro(kc, a_panel, b_panel, first ? NULL : partial, tile);\n"
     << "          tsr_store_tile(tile, l->c" << operand_args(mm, "l->") << ", i0 + ir, l->j0 + jr,\n"
     << "                         rows, nt - (jr - jt) < NR ? nt - (jr - jt) : NR, dim_n);\n"
     << "        }\n"
     << "      }\n"
     << "    }\n"
     << "  }\n"
     << "}\n\n";

  os << emit_matmul_entry(spec, /*skinny_plan=*/true, choice.entry_suffix);
  return os.str();
}

}  // namespace tsr::x86
