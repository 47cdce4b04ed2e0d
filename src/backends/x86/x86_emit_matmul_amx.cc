// bf16 matmul on AMX tiles for x86:v4+amx. Instructions and tile
// configuration per the Intel SDM vol. 2 (LDTILECFG, TILELOADD, TDPBF16PS,
// TILESTORED, TILERELEASE) and the Intel Architecture Instruction Set
// Extensions Programming Reference, ch. 3 (palette 1: 8 tiles of at most
// 16 rows x 64 bytes); intrinsics as in clang-14's amxintrin.h.
//
// Each C block of 32 x 32 is four f32 accumulator tiles (0-3) fed by two
// A tiles (4, 5: 16 rows x 32 bf16 of k) and two B tiles (6, 7: 16 k pairs x
// 16 columns, the VNNI pair layout). A is copied as bf16 into 32-row blocks,
// K padded to a multiple of 32 with zeros; B is repacked per 32-column panel
// into pairs (B[k][n], B[k+1][n]) of 32 bits. Zero padding makes every tail
// (M, N, K, K odd) a full tile step, so one tile configuration serves the
// whole kernel. Each element of C sums its k pairs in increasing order inside
// one tile for all of K, whatever task computes it; the epilogue then runs on
// the stored f32 tile through the shared tsr_store_tile.
#include <sstream>

#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// A column block keeps packed B for all of K within this many bytes, like the
// f32 path; the row block is kMc rows of A (bf16, all of K) per worker.
constexpr long kBBudgetBytes = 4l << 20;
constexpr int kMc = 128;
constexpr int kTasksWanted = 16;   // per column block, from the shape alone
constexpr int kTileMinPanels = 4;  // the narrowest column tile, in 32-column panels

const char* kTileHelpers = R"(/* tile numbers: C accumulators 0-3 (rows x cols: 00 01 10 11), A 4-5, B 6-7 */
enum { MB = 32, NB = 32, KB = 32, NR = NB }; /* C block MB x NB; KB = k per tile step; NR: tile row stride */
/* LDTILECFG operand (palette 1): 8 tiles of 16 rows x 64 bytes */
typedef struct tsr_tile_config {
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} tsr_tile_config;
static const tsr_tile_config tsr_tiles = {
    1, 0, {0}, {64, 64, 64, 64, 64, 64, 64, 64}, {16, 16, 16, 16, 16, 16, 16, 16}};

/* out[0 : 32*32] (row stride NB floats) = A_block[32 x kpad] . B_panel[kpad x 32];
 * ap: 32 rows of kpad bf16, bp: kpad/2 rows of 32 column pairs (128 bytes) */
static void tsr_amx_block(const uint16_t* ap, const uint16_t* bp, int64_t kpad, float* out) {
  const int64_t a_stride = kpad * 2;
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (int64_t k0 = 0; k0 < kpad; k0 += KB) {
    _tile_loadd(4, ap + k0, a_stride);
    _tile_loadd(5, ap + 16 * kpad + k0, a_stride);
    _tile_loadd(6, bp + k0 * NB, NB * 4);
    _tile_loadd(7, bp + k0 * NB + 32, NB * 4);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, out, NB * 4);
  _tile_stored(1, out + 16, NB * 4);
  _tile_stored(2, out + 16 * NB, NB * 4);
  _tile_stored(3, out + 16 * NB + 16, NB * 4);
}

)";

}  // namespace

std::string emit_matmul_amx(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice) {
  const MatmulSpec& mm = spec.matmul();
  const bool a_row = mm.a == Layout::row, b_row = mm.b == Layout::row;
  std::ostringstream os;
  os << emit_prelude(spec, tier,
                     "C[M,N] = A[M,K] * B[K,N] on AMX tiles (TDPBF16PS, f32 accumulation) with M = " + mm.m.str() +
                         ", N = " + mm.n.str() + ", K = " + mm.k.str() + "; layout a = " + layout_name(mm.a) +
                         " (stored " + (a_row ? "[M,K]" : "[K,M]") + "), b = " + layout_name(mm.b) + " (stored " +
                         (b_row ? "[K,N]" : "[N,K]") + "), C row-major; epilogue: " + epilogue_description(mm),
                     choice.entry_suffix);
  os << "/* tests only: a software model of the AMX instructions replaces the intrinsics\n"
     << " * (tests/unit/amx_model.h; docs/targets-x86.md, \"x86:v4+amx\") */\n"
     << "#ifdef TSR_AMX_MODEL\n#include TSR_AMX_MODEL\n#endif\n\n"
     << kTileHelpers
     << "enum { MC = " << kMc << ", TASKS_WANTED = " << kTasksWanted << ", TILE_MIN_PANELS = " << kTileMinPanels
     << " };\n#define TSR_B_BUDGET_BYTES " << kBBudgetBytes << "L /* packed B kept live per column block */\n\n";

  os << "/* A(m, k) and B(k, n) in storage order */\n"
     << "#define A_AT(m, k) ((int64_t)" << (a_row ? "(m) * dim_k + (k)" : "(k) * dim_m + (m)") << ")\n"
     << "#define B_AT(k, n) ((int64_t)" << (b_row ? "(k) * dim_n + (n)" : "(n) * dim_k + (k)") << ")\n\n";

  os << "/* A[i0 : i0+mc, 0 : K] as bf16 rows of kpad, rows up to a multiple of MB; zeros pad both */\n"
     << "static void tsr_pack_a(uint16_t* restrict ap, const tsr_storage* restrict a, int64_t i0, int64_t mc,\n"
     << "                       int64_t kpad, int64_t dim_m, int64_t dim_k) {\n"
     << "  const int64_t rows = (mc + MB - 1) / MB * MB;\n"
     << "  (void)dim_m;\n"
     << "  for (int64_t r = 0; r < rows; ++r) {\n"
     << "    uint16_t* restrict row = ap + r * kpad;\n"
     << "    int64_t k = 0;\n"
     << "    if (r < mc)\n"
     << "      for (; k < dim_k; ++k) row[k] = a[A_AT(i0 + r, k)];\n"
     << "    for (; k < kpad; ++k) row[k] = 0;\n"
     << "  }\n}\n\n";

  os << "/* panel jr / NB of B[0 : K, j0 : j0+nc] in VNNI pairs: row k/2 holds (B[k][n], B[k+1][n])\n"
     << " * for the panel's NB columns; zeros past K and past nc */\n"
     << "static void tsr_pack_b(uint16_t* restrict bp, const tsr_storage* restrict b, int64_t j0, int64_t nc,\n"
     << "                       int64_t kpad, int64_t jr, int64_t dim_n, int64_t dim_k) {\n"
     << "  const int64_t cols = nc - jr < NB ? nc - jr : NB;\n"
     << "  uint16_t* restrict panel = bp + jr * kpad;\n"
     << "  (void)dim_n;\n"
     << "  for (int64_t k = 0; k < kpad; ++k) {\n"
     << "    uint16_t* restrict pairs = panel + k / 2 * (NB * 2) + (k & 1);\n"
     << "    int64_t c = 0;\n"
     << "    if (k < dim_k)\n"
     << "      for (; c < cols; ++c) pairs[c * 2] = b[B_AT(k, j0 + jr + c)];\n"
     << "    for (; c < NB; ++c) pairs[c * 2] = 0;\n"
     << "  }\n}\n\n";

  os << emit_store_tile(mm);

  os << "/* How a launch splits into tasks, from the shape alone (never the worker count) */\n"
     << "typedef struct tsr_plan {\n"
     << "  int64_t kpad;           /* K rounded up to KB */\n"
     << "  int64_t nc_max;         /* columns of B packed at once: a multiple of NB */\n"
     << "  int64_t tile_n;         /* columns of C per task: a multiple of NB, <= nc_max */\n"
     << "  int64_t m_blocks;       /* MC-row blocks of C */\n"
     << "  uint64_t bp_bytes;      /* workspace: packed B of one column block, shared */\n"
     << "  uint64_t worker_bytes;  /* workspace per worker: packed A block */\n"
     << "} tsr_plan;\n\n"
     << "#define TSR_ROUND64(bytes) (((uint64_t)(bytes) + 63u) & ~(uint64_t)63u)\n"
     << "static tsr_plan tsr_make_plan(int64_t dim_m, int64_t dim_n, int64_t dim_k) {\n"
     << "  tsr_plan p;\n"
     << "  p.kpad = (dim_k + KB - 1) / KB * KB;\n"
     << "  const int64_t n_pad = (dim_n + NB - 1) / NB * NB;\n"
     << "  const int64_t k_rows = p.kpad > 0 ? p.kpad : KB;\n"
     << "  p.nc_max = TSR_B_BUDGET_BYTES / (k_rows * 2) / NB * NB;\n"
     << "  if (p.nc_max < NB) p.nc_max = NB;\n"
     << "  if (p.nc_max > n_pad) p.nc_max = n_pad;\n"
     << "  p.m_blocks = (dim_m + MC - 1) / MC;\n"
     << "  const int64_t panels = p.nc_max / NB;\n"
     << "  const int64_t split = p.m_blocks >= TASKS_WANTED ? 1 : (TASKS_WANTED + p.m_blocks - 1) / p.m_blocks;\n"
     << "  int64_t tile_panels = (panels + split - 1) / split;\n"
     << "  if (tile_panels < TILE_MIN_PANELS) tile_panels = TILE_MIN_PANELS;\n"
     << "  if (tile_panels > panels) tile_panels = panels;\n"
     << "  p.tile_n = tile_panels * NB;\n"
     << "  p.bp_bytes = TSR_ROUND64((uint64_t)p.kpad * (uint64_t)p.nc_max * 2u);\n"
     << "  p.worker_bytes = TSR_ROUND64((uint64_t)MC * (uint64_t)p.kpad * 2u);\n"
     << "  return p;\n"
     << "}\n\n";

  os << emit_launch_struct(spec,
                           "  int64_t dim_m, dim_n, dim_k;\n"
                           "  tsr_plan plan;\n"
                           "  uint16_t* bp;          /* packed B of the current column block */\n"
                           "  char* worker_space;    /* plan.worker_bytes per worker */\n"
                           "  int64_t j0, nc, ncpad; /* the current column block */\n"
                           "  int64_t tiles_n;       /* column tiles in it */\n");

  os << "static void tsr_pack_b_task(void* arg, int64_t task, uint32_t worker) {\n"
     << "  const tsr_launch* l = (const tsr_launch*)arg;\n"
     << "  (void)worker;\n"
     << "  tsr_pack_b(l->bp, l->b, l->j0, l->nc, l->plan.kpad, task * NB, l->dim_n, l->dim_k);\n"
     << "}\n\n";

  os << "/* task (row block, column tile): C[i0 : i0+mc, j0+jt : j0+jt+nt]. The tile\n"
     << " * configuration is per thread, so every task loads it and releases it. */\n"
     << "static void tsr_block_task(void* arg, int64_t task, uint32_t worker) {\n"
     << "  const tsr_launch* l = (const tsr_launch*)arg;\n"
     << "  const int64_t dim_m = l->dim_m, dim_n = l->dim_n, kpad = l->plan.kpad;\n"
     << "  const int64_t i0 = task / l->tiles_n * MC, jt = task % l->tiles_n * l->plan.tile_n;\n"
     << "  const int64_t mc = dim_m - i0 < MC ? dim_m - i0 : MC;\n"
     << "  const int64_t nt = l->nc - jt < l->plan.tile_n ? l->nc - jt : l->plan.tile_n;\n"
     << "  uint16_t* ap = (uint16_t*)(l->worker_space + (uint64_t)worker * l->plan.worker_bytes);\n"
     << "  float block[MB * NB] __attribute__((aligned(64)));\n"
     << "  tsr_pack_a(ap, l->a, i0, mc, kpad, dim_m, l->dim_k);\n"
     << "  _tile_loadconfig(&tsr_tiles);\n"
     << "  for (int64_t jr = jt; jr < jt + nt; jr += NB) {\n"
     << "    for (int64_t ir = 0; ir < mc; ir += MB) {\n"
     << "      tsr_amx_block(ap + ir * kpad, l->bp + jr * kpad, kpad, block);\n"
     << "      tsr_store_tile(block, l->c" << operand_args(mm, "l->") << ", i0 + ir, l->j0 + jr,\n"
     << "                     mc - ir < MB ? mc - ir : MB, nt - (jr - jt) < NB ? nt - (jr - jt) : NB, dim_n);\n"
     << "    }\n"
     << "  }\n"
     << "  _tile_release();\n"
     << "}\n\n";

  os << emit_matmul_entry(spec, /*skinny_plan=*/false, choice.entry_suffix);
  return os.str();
}

}  // namespace tsr::x86
