// Attention family for x86 (System V AMD64 psABI; x86-64 levels v2-v4): a
// flash-style schedule in f32 vector lanes. A task is one block of BQ query
// rows of one (batch, query head), or of several query heads of one KV head
// when q_len is short (decode). Its queries are held transposed (qt[d][r]),
// so scores come out transposed (s[j][r]: one key per row, the block's
// queries across the lanes) and the online softmax runs lane-wise with no
// horizontal reduction. K and V stream through per-worker scratch in tiles of
// BK keys (converted to f32 once per tile); a task visits only the keys its
// rows' mask allows and masks element by element only the tiles that need it.
// Every order is fixed: results do not depend on the worker count.
#include <sstream>

#include "target/attention_text.h"
#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

constexpr int kQueryRows = 64;   // BQ: query rows per task (64 measured ~10% ahead of 32 at S = 1024, D = 128)
constexpr int kTileKeys = 48;    // BK: keys per tile (a multiple of both score micro-tiles)

// The register blocking of the two products, per register file size.
struct Blocking {
  int rj;    // scores: keys per micro-tile (times QC query vectors)
  int qc;    // scores: query vectors per micro-tile
  int rm;    // P·V: query rows per micro-tile
  int nv;    // P·V: output vectors per micro-tile
};

Blocking blocking_for(const Tier& tier) {
  if (tier.vector_registers >= 32) return {12, 2, 4, 4};   // 24 + 2 and 16 + 4 registers
  return {6, 2, 4, 2};                                     // 12 + 2 and 8 + 2 registers
}

// s[j0 .. j0 + RJ)[c0 .. c0 + QC vectors) = Σ_d k[j][d] · qt[d][lanes], unrolled.
std::string scores_block(const Blocking& bl) {
  std::ostringstream os;
  os << "TSR_VECTOR_FN TSR_INLINE void tsr_scores_block(tsr_scratch* restrict w, int j0, int c0) {\n";
  for (int j = 0; j < bl.rj; ++j)
    for (int c = 0; c < bl.qc; ++c) os << "  tsr_vec a" << j << "_" << c << " = 0.0f;\n";
  os << "  for (int d = 0; d < TSR_D; ++d) {\n";
  for (int c = 0; c < bl.qc; ++c)
    os << "    const tsr_vec q" << c << " = *(const tsr_vec*)&w->qt[d][(c0 + " << c << ") * VW];\n";
  for (int j = 0; j < bl.rj; ++j) {
    os << "    { const float kj = w->k[j0 + " << j << "][d];";
    for (int c = 0; c < bl.qc; ++c) os << " a" << j << "_" << c << " = tsr_vfma(q" << c << ", (tsr_vec)kj, a" << j << "_" << c << ");";
    os << " }\n";
  }
  os << "  }\n";
  for (int j = 0; j < bl.rj; ++j)
    for (int c = 0; c < bl.qc; ++c)
      os << "  *(tsr_vec*)&w->s[j0 + " << j << "][(c0 + " << c << ") * VW] = a" << j << "_" << c << ";\n";
  os << "}\n";
  return os.str();
}

// Decode blocks (a few rows): s[j][r] as one vector dot product over d per
// (key, row) instead of a broadcast per d that would fill 32 lanes for a few
// queries; rows past `rows` are 0.
const char* kScoresDot = R"(TSR_INLINE tsr_vec tsr_loadu(const float* p) {
  tsr_vec v;
  memcpy(&v, p, sizeof v);
  return v;
}
TSR_VECTOR_FN static void tsr_scores_dot(tsr_scratch* restrict w, int nkb, int rows) {
  for (int j = 0; j < nkb; ++j) {
    for (int c = 0; c < TSR_QV; ++c) *(tsr_vec*)&w->s[j][c * VW] = 0.0f;
    for (int r = 0; r < rows; ++r) {
      tsr_vec acc0 = 0.0f, acc1 = 0.0f;
      int d = 0;
      for (; d + 2 * VW <= TSR_D; d += 2 * VW) {
        acc0 = tsr_vfma(tsr_loadu(&w->qd[r][d]), tsr_loadu(&w->k[j][d]), acc0);
        acc1 = tsr_vfma(tsr_loadu(&w->qd[r][d + VW]), tsr_loadu(&w->k[j][d + VW]), acc1);
      }
      for (; d + VW <= TSR_D; d += VW) acc0 = tsr_vfma(tsr_loadu(&w->qd[r][d]), tsr_loadu(&w->k[j][d]), acc0);
      acc0 += acc1;
      float sum = 0.0f;
      for (int l = 0; l < VW; ++l) sum += acc0[l];
      for (; d < TSR_D; ++d) sum += w->qd[r][d] * w->k[j][d];
      w->s[j][r] = sum;
    }
  }
}
)";

// o[r0 .. r0 + RM)[c0 .. c0 + nv vectors) = o · corr[r] + Σ_{j < nk} s[j][r] · v[j][lanes].
std::string pv_block(const std::string& name, int rm, int nv) {
  std::ostringstream os;
  os << "TSR_VECTOR_FN TSR_INLINE void " << name << "(tsr_scratch* restrict w, int r0, int c0, int nk) {\n";
  for (int r = 0; r < rm; ++r) {
    os << "  const float k" << r << " = w->corr[r0 + " << r << "];\n";
    for (int c = 0; c < nv; ++c)
      os << "  tsr_vec o" << r << "_" << c << " = *(const tsr_vec*)&w->o[r0 + " << r << "][(c0 + " << c << ") * VW] * k" << r
         << ";\n";
  }
  os << "  for (int j = 0; j < nk; ++j) {\n";
  for (int c = 0; c < nv; ++c) os << "    const tsr_vec v" << c << " = *(const tsr_vec*)&w->v[j][(c0 + " << c << ") * VW];\n";
  for (int r = 0; r < rm; ++r) {
    os << "    { const float p = w->s[j][r0 + " << r << "];";
    for (int c = 0; c < nv; ++c) os << " o" << r << "_" << c << " = tsr_vfma(v" << c << ", (tsr_vec)p, o" << r << "_" << c << ");";
    os << " }\n";
  }
  os << "  }\n";
  for (int r = 0; r < rm; ++r)
    for (int c = 0; c < nv; ++c)
      os << "  *(tsr_vec*)&w->o[r0 + " << r << "][(c0 + " << c << ") * VW] = o" << r << "_" << c << ";\n";
  os << "}\n";
  return os.str();
}

// The launch's split into blocks and key chunks: a function of the shape only,
// so results do not depend on the worker count.
const char* kPlan = R"(/* the split of one launch, from the shape alone */
typedef struct tsr_plan {
  int64_t q_blocks, heads_per_block, head_blocks, blocks;   /* blocks of BQ rows */
  int64_t splits, split_keys;                               /* key chunks per block (split-KV) */
} tsr_plan;
enum { TSR_SPLIT_TASKS = 16, TSR_SPLIT_MIN_KEYS = 512 };
static tsr_plan tsr_make_plan(int64_t batch, int64_t sq, int64_t skv) {
  tsr_plan p;
  p.q_blocks = (sq + TSR_BQ - 1) / TSR_BQ;
  /* a KV head's query heads share a block when q_len leaves rows free (decode) */
  p.heads_per_block = sq >= TSR_BQ ? 1 : TSR_BQ / sq < TSR_GROUP ? TSR_BQ / sq : TSR_GROUP;
  p.head_blocks = (TSR_GROUP + p.heads_per_block - 1) / p.heads_per_block;
  p.blocks = batch * TSR_HKV * p.head_blocks * p.q_blocks;
  /* flash-decoding: fewer than TSR_SPLIT_TASKS blocks and a long cache split the
   * keys into chunks of at least TSR_SPLIT_MIN_KEYS (whole tiles), merged in order */
  p.splits = 1;
  if (p.blocks < TSR_SPLIT_TASKS && skv >= 2 * TSR_SPLIT_MIN_KEYS) {
    p.splits = (TSR_SPLIT_TASKS + p.blocks - 1) / p.blocks;
    if (p.splits > skv / TSR_SPLIT_MIN_KEYS) p.splits = skv / TSR_SPLIT_MIN_KEYS;
  }
  p.split_keys = ((skv + p.splits - 1) / p.splits + TSR_BK - 1) / TSR_BK * TSR_BK;
  if (p.split_keys < 1) p.split_keys = 1;
  p.splits = p.split_keys > 0 ? (skv + p.split_keys - 1) / p.split_keys : 1;
  if (p.splits < 1) p.splits = 1;
  return p;
}

)";

}  // namespace

std::string emit_attention(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice) {
  const AttentionSpec& a = spec.attention();
  const Blocking bl = blocking_for(tier);
  const std::string HQ = std::to_string(a.q_heads.value), HKV = std::to_string(a.kv_heads.value);
  const std::string left = a.window ? "INT64_C(" + std::to_string(a.window->left) + ")" : "";
  const std::string right = a.window ? "INT64_C(" + std::to_string(a.window->right) + ")" : "";
  std::ostringstream desc;
  desc << "attention (" << attention_layout_name(a.layout) << ") with batch = " << a.batch.str()
       << ", heads = " << HQ << "/" << HKV << ", q_len = " << a.q_len.str() << ", kv_len = " << a.kv_len.str()
       << ", head_dim = " << a.head_dim.value << "/" << a.v_head_dim.value << ", " << attention_mask_description(a)
       << ", scale = " << float_literal(a.scale) << (a.softcap ? ", softcap = " + float_literal(*a.softcap) : "")
       << (a.alibi ? ", alibi" : "") << (a.lse ? ", lse" : "");
  std::ostringstream os;
  os << emit_prelude(spec, tier, desc.str(), choice.entry_suffix) << emit_vector_io(spec, tier);
  os << "enum {\n"
     << "  TSR_D = " << a.head_dim.value << ", TSR_DV = " << a.v_head_dim.value
     << ", TSR_DVP = (TSR_DV + VW - 1) / VW * VW,   /* head dims; v rows padded to whole vectors */\n"
     << "  TSR_BQ = " << kQueryRows << ", TSR_BK = " << kTileKeys << ",   /* query rows per task, keys per tile */\n"
     << "  TSR_QV = TSR_BQ / VW, TSR_DVV = TSR_DVP / VW,\n"
     << "  TSR_RJ = " << bl.rj << ", TSR_QC = " << bl.qc << ", TSR_RM = " << bl.rm << ", TSR_NV = " << bl.nv
     << ",   /* micro-tiles */\n"
     << "  TSR_HQ = " << HQ << ", TSR_HKV = " << HKV << ", TSR_GROUP = " << a.group() << ",\n"
     << "  TSR_DOT_ROWS = 4   /* blocks of at most this many rows take one dot product per (row, key) */\n};\n\n";
  os << "/* one worker's scratch (every array a multiple of 64 bytes) */\n"
     << "typedef struct tsr_scratch {\n"
     << "  float qt[TSR_D][TSR_BQ];    /* the block's queries, transposed */\n"
     << "  float k[TSR_BK][TSR_D];     /* one tile of keys */\n"
     << "  float v[TSR_BK][TSR_DVP];   /* its values (pad columns 0) */\n"
     << "  float s[TSR_BK][TSR_BQ];    /* scores, then probabilities, transposed */\n"
     << "  float o[TSR_BQ][TSR_DVP];   /* unnormalized outputs */\n"
     << "  float m[TSR_BQ], l[TSR_BQ], corr[TSR_BQ];   /* running max, sum, this tile's rescaling */\n"
     << "  int64_t row_h[TSR_BQ], row_i[TSR_BQ];       /* each row's query head and position */\n"
     << "  float slope[TSR_BQ];                        /* each row's ALiBi slope */\n"
     << "  float qd[TSR_DOT_ROWS][TSR_D];              /* the queries, untransposed, of a block of few rows */\n"
     << "} __attribute__((aligned(64))) tsr_scratch;\n\n"
     << scores_block(bl) << kScoresDot << pv_block("tsr_pv_block", bl.rm, bl.nv) << pv_block("tsr_pv_vector", bl.rm, 1)
     << pv_block("tsr_pv_row_block", 1, bl.nv) << pv_block("tsr_pv_row_vector", 1, 1);
  os << "/* one key chunk's unnormalized result for a block (split-KV) */\n"
     << "typedef struct tsr_partial {\n  float o[TSR_BQ][TSR_DVP];\n  float m[TSR_BQ], l[TSR_BQ];\n} tsr_partial;\n\n"
     << kPlan
     << emit_launch_struct(spec, "  int64_t batch, sq, skv;\n  tsr_plan plan;\n  tsr_scratch* scratch;   /* one per worker */\n"
                                 "  tsr_partial* partials;   /* plan.blocks x plan.splits when split */\n");

  // The task: query heads [h0, h0 + nh) of KV head hk, positions [i0, i1).
  os << "/* rows r = (head h0 + r / per_head, position i0 + r % per_head): nh > 1 only when\n"
     << " * q_len < BQ, so a decode block holds several query heads of one KV head */\n"
     << "TSR_VECTOR_FN static void tsr_attend(const tsr_launch* restrict l, int64_t b, int64_t hk, int64_t h0, int nh,\n"
     << "                                     int64_t i0, int64_t ka, int64_t kb, tsr_scratch* restrict w,\n"
     << "                                     tsr_partial* restrict part) {\n"
     << "  const int64_t sq = l->sq, skv = l->skv, off = skv - sq;\n"
     << "  const int per_head = sq - i0 < TSR_BQ ? (int)(sq - i0) : TSR_BQ, rows = nh * per_head;\n"
     << "  const int64_t i1 = i0 + per_head;\n"
     << "  const int qv = (rows + VW - 1) / VW;   /* the query vectors that hold rows */\n"
     << "  for (int r = 0; r < TSR_BQ; ++r) {\n"
     << "    w->row_h[r] = h0 + (r < rows ? r / per_head : 0);\n"
     << "    w->row_i[r] = i0 + (r < rows ? r % per_head : 0);\n"
     << "  }\n"
     << "  /* the keys some row of the block may attend: [j_lo, j_hi) */\n"
     << "  int64_t j_lo = 0, j_hi = skv;\n";
  if (a.causal) os << "  if (i1 + off < j_hi) j_hi = i1 + off;   /* causal: j <= i + off */\n";
  if (a.window)
    os << "  if (i1 + off + " << right << " < j_hi) j_hi = i1 + off + " << right << ";   /* j <= i + off + right */\n"
       << "  if (i0 + off - " << left << " > j_lo) j_lo = i0 + off - " << left << ";   /* j >= i + off - left */\n";
  os << "  if (ka > j_lo) j_lo = ka;   /* this task's chunk of the keys [ka, kb) */\n"
     << "  if (kb < j_hi) j_hi = kb;\n"
     << "  for (int d = 0; d < TSR_D; ++d)\n"
     << "    for (int r = 0; r < TSR_BQ; ++r) w->qt[d][r] = 0.0f;\n"
     << "  for (int r = 0; r < rows; ++r) {\n"
     << "    const tsr_storage* restrict qr = l->q + " << attention_row_offset(a.layout, "b", "w->row_i[r]", "sq", "w->row_h[r]", "TSR_HQ", "TSR_D")
     << ";\n"
     << "    for (int d = 0; d < TSR_D; ++d) w->qt[d][r] = tsr_load(qr, d);\n"
     << "    if (rows <= TSR_DOT_ROWS) tsr_load_span(w->qd[r], qr, TSR_D);\n  }\n"
     << "  for (int r = 0; r < TSR_BQ; ++r) {\n"
     << "    w->m[r] = -0x1.fffffep127f;   /* -FLT_MAX, not -inf: exp(m - m) of a row without keys stays finite */\n"
     << "    w->l[r] = 0.0f;\n"
     << "    for (int c = 0; c < TSR_DVP; ++c) w->o[r][c] = 0.0f;\n  }\n";
  if (a.alibi) os << "  for (int r = 0; r < TSR_BQ; ++r) w->slope[r] = l->alibi_slopes[w->row_h[r]];\n";
  os << "  for (int64_t t = j_lo; t < j_hi; t += TSR_BK) {\n"
     << "    const int nk = j_hi - t < TSR_BK ? (int)(j_hi - t) : TSR_BK;\n"
     << "    for (int j = 0; j < TSR_BK; ++j) {\n"
     << "      if (j < nk) {\n"
     << "        tsr_load_span(w->k[j], l->k + " << attention_row_offset(a.layout, "b", "(t + j)", "skv", "hk", "TSR_HKV", "TSR_D")
     << ", TSR_D);\n"
     << "        tsr_load_span(w->v[j], l->v + " << attention_row_offset(a.layout, "b", "(t + j)", "skv", "hk", "TSR_HKV", "TSR_DV")
     << ", TSR_DV);\n"
     << "        for (int c = TSR_DV; c < TSR_DVP; ++c) w->v[j][c] = 0.0f;\n"
     << "      } else {\n"
     << "        for (int d = 0; d < TSR_D; ++d) w->k[j][d] = 0.0f;\n"
     << "        for (int c = 0; c < TSR_DVP; ++c) w->v[j][c] = 0.0f;\n"
     << "      }\n    }\n"
     << "    const int nkb = (nk + TSR_RJ - 1) / TSR_RJ * TSR_RJ;\n"
     << "    if (rows <= TSR_DOT_ROWS) {\n"
     << "      tsr_scores_dot(w, nkb, rows);\n"
     << "    } else {\n"
     << "      for (int j0 = 0; j0 < nkb; j0 += TSR_RJ)\n"
     << "        for (int c0 = 0; c0 < TSR_QV; c0 += TSR_QC) tsr_scores_block(w, j0, c0);\n"
     << "    }\n"
     << "    /* logits */\n"
     << "    for (int j = 0; j < nkb; ++j)\n"
     << "      for (int c = 0; c < qv; ++c) {\n"
     << "        tsr_vec x = *(tsr_vec*)&w->s[j][c * VW] * " << float_literal(a.scale) << ";\n";
  if (a.softcap)
    os << "        x = " << vector_unary_expr(Op::tanh, "x / " + float_literal(*a.softcap)) << " * "
       << float_literal(*a.softcap) << ";\n";
  os << "        *(tsr_vec*)&w->s[j][c * VW] = x;\n      }\n";
  // Element-wise work only where some (row, key) of the tile needs it.
  std::string partial = "nk < TSR_BK";
  if (a.causal) partial += " || t + nk - 1 > i0 + off";
  if (a.window)
    partial += " || t < i1 - 1 + off - " + left + " || t + nk - 1 > i0 + off + " + right;
  const bool per_element = a.alibi;
  os << "    if (" << (per_element ? "1" : partial) << ") {\n"
     << "      for (int j = 0; j < nkb; ++j)\n"
     << "        for (int r = 0; r < TSR_BQ; ++r) {\n"
     << "          const int64_t key = t + j, diagonal = w->row_i[r] + off;\n"
     << "          int allowed = j < nk;\n";
  if (a.causal) os << "          allowed = allowed && key <= diagonal;\n";
  if (a.window) os << "          allowed = allowed && key >= diagonal - " << left << " && key <= diagonal + " << right << ";\n";
  if (a.alibi)
    os << "          w->s[j][r] -= w->slope[r] * (float)(diagonal > key ? diagonal - key : key - diagonal);\n";
  if (!a.causal && !a.window && !a.alibi) os << "          (void)key;\n          (void)diagonal;\n";
  os << "          if (!allowed) w->s[j][r] = -INFINITY;\n"
     << "        }\n    }\n"
     << "    /* online softmax, lane-wise over the block's queries */\n"
     << "    for (int c = 0; c < qv; ++c) {\n"
     << "      tsr_vec mx = *(tsr_vec*)&w->m[c * VW];\n"
     << "      const tsr_vec m_old = mx;\n"
     << "      for (int j = 0; j < nk; ++j) mx = __builtin_elementwise_max(mx, *(tsr_vec*)&w->s[j][c * VW]);\n"
     << "      const tsr_vec corr = tsr_vexp(m_old - mx);\n"
     << "      tsr_vec sum = 0.0f;\n"
     << "      for (int j = 0; j < nkb; ++j) {\n"
     << "        const tsr_vec p = tsr_vexp(*(tsr_vec*)&w->s[j][c * VW] - mx);   /* 0 for a masked key */\n"
     << "        *(tsr_vec*)&w->s[j][c * VW] = p;\n"
     << "        sum += p;\n      }\n"
     << "      *(tsr_vec*)&w->m[c * VW] = mx;\n"
     << "      *(tsr_vec*)&w->corr[c * VW] = corr;\n"
     << "      *(tsr_vec*)&w->l[c * VW] = *(tsr_vec*)&w->l[c * VW] * corr + sum;\n    }\n"
     << "    /* o = o * corr + P V over the rows that exist */\n"
     << "    int r0 = 0;\n"
     << "    for (; r0 + TSR_RM <= rows; r0 += TSR_RM) {\n"
     << "      int c0 = 0;\n"
     << "      for (; c0 + TSR_NV <= TSR_DVV; c0 += TSR_NV) tsr_pv_block(w, r0, c0, nk);\n"
     << "      for (; c0 < TSR_DVV; ++c0) tsr_pv_vector(w, r0, c0, nk);\n"
     << "    }\n"
     << "    for (; r0 < rows; ++r0) {   /* the last rows one at a time */\n"
     << "      int c0 = 0;\n"
     << "      for (; c0 + TSR_NV <= TSR_DVV; c0 += TSR_NV) tsr_pv_row_block(w, r0, c0, nk);\n"
     << "      for (; c0 < TSR_DVV; ++c0) tsr_pv_row_vector(w, r0, c0, nk);\n"
     << "    }\n  }\n"
     << "  if (part) {   /* split-KV: the chunk's state, merged by tsr_merge */\n"
     << "    memcpy(part->o, w->o, sizeof part->o);\n"
     << "    memcpy(part->m, w->m, sizeof part->m);\n"
     << "    memcpy(part->l, w->l, sizeof part->l);\n"
     << "    return;\n  }\n"
     << "  /* a row without keys is o = 0, lse = -inf */\n"
     << "  for (int r = 0; r < rows; ++r) {\n"
     << "    const float sum = w->l[r], inv = sum > 0.0f ? 1.0f / sum : 0.0f;\n"
     << "    for (int c = 0; c < TSR_DV; ++c) w->o[r][c] *= inv;\n"
     << "    tsr_store_span(l->o + " << attention_row_offset(a.layout, "b", "w->row_i[r]", "sq", "w->row_h[r]", "TSR_HQ", "TSR_DV")
     << ", w->o[r], TSR_DV);\n";
  if (a.lse)
    os << "    l->lse[(b * TSR_HQ + w->row_h[r]) * sq + w->row_i[r]] = sum > 0.0f ? w->m[r] + tsr_vlog((tsr_vec)sum)[0] : -INFINITY;\n";
  os << "  }\n}\n\n";
  // Blocks in (b, KV head, head block, query block) order; each worker has its own scratch.
  os << "typedef struct tsr_block { int64_t b, hk, h0, i0; int nh; } tsr_block;\n"
     << "static tsr_block tsr_block_of(const tsr_launch* l, int64_t block) {\n"
     << "  const tsr_plan* p = &l->plan;\n"
     << "  const int64_t qb = block % p->q_blocks, rest = block / p->q_blocks;\n"
     << "  const int64_t hb = rest % p->head_blocks, first = hb * p->heads_per_block;\n"
     << "  tsr_block k;\n"
     << "  k.hk = rest / p->head_blocks % TSR_HKV;\n"
     << "  k.b = rest / (p->head_blocks * TSR_HKV);\n"
     << "  k.h0 = k.hk * TSR_GROUP + first;\n"
     << "  k.nh = (int)(TSR_GROUP - first < p->heads_per_block ? TSR_GROUP - first : p->heads_per_block);\n"
     << "  k.i0 = qb * TSR_BQ;\n"
     << "  return k;\n}\n\n"
     << "/* task = block * splits + chunk */\n"
     << "static void tsr_task(void* arg, int64_t task, uint32_t worker) {\n"
     << "  const tsr_launch* l = (const tsr_launch*)arg;\n"
     << "  const int64_t chunk = task % l->plan.splits, ka = chunk * l->plan.split_keys;\n"
     << "  const tsr_block k = tsr_block_of(l, task / l->plan.splits);\n"
     << "  tsr_attend(l, k.b, k.hk, k.h0, k.nh, k.i0, ka, ka + l->plan.split_keys, l->scratch + worker,\n"
     << "             l->plan.splits > 1 ? l->partials + task : NULL);\n}\n\n"
     << "/* split-KV: a block's chunks combined in chunk order (deterministic), normalized, stored */\n"
     << "TSR_VECTOR_FN static void tsr_merge(void* arg, int64_t block, uint32_t worker) {\n"
     << "  const tsr_launch* l = (const tsr_launch*)arg;\n"
     << "  const tsr_block k = tsr_block_of(l, block);\n"
     << "  const tsr_partial* part = l->partials + block * l->plan.splits;\n"
     << "  float* restrict row = l->scratch[worker].o[0];\n"
     << "  const int per_head = l->sq - k.i0 < TSR_BQ ? (int)(l->sq - k.i0) : TSR_BQ;\n"
     << "  for (int r = 0; r < k.nh * per_head; ++r) {\n"
     << "    const int64_t h = k.h0 + r / per_head, i = k.i0 + r % per_head;\n"
     << "    float mx = -0x1.fffffep127f, sum = 0.0f;\n"
     << "    for (int64_t c = 0; c < l->plan.splits; ++c) mx = part[c].m[r] > mx ? part[c].m[r] : mx;\n"
     << "    for (int d = 0; d < TSR_DV; ++d) row[d] = 0.0f;\n"
     << "    for (int64_t c = 0; c < l->plan.splits; ++c) {\n"
     << "      const float e = tsr_vexp((tsr_vec)(part[c].m[r] - mx))[0];   /* no libm: the vector exp */\n"
     << "      sum += part[c].l[r] * e;\n"
     << "      for (int d = 0; d < TSR_DV; ++d) row[d] += part[c].o[r][d] * e;\n"
     << "    }\n"
     << "    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;\n"
     << "    for (int d = 0; d < TSR_DV; ++d) row[d] *= inv;\n"
     << "    tsr_store_span(l->o + " << attention_row_offset(a.layout, "k.b", "i", "l->sq", "h", "TSR_HQ", "TSR_DV") << ", row, TSR_DV);\n";
  if (a.lse) os << "    l->lse[(k.b * TSR_HQ + h) * l->sq + i] = sum > 0.0f ? mx + tsr_vlog((tsr_vec)sum)[0] : -INFINITY;\n";
  os << "  }\n}\n\n"
     << emit_entry_head(spec, choice.entry_suffix)
     << "  l.batch = " << dim_expr(spec, a.batch) << ";\n"
     << "  l.sq = " << dim_expr(spec, a.q_len) << ";\n"
     << "  l.skv = " << dim_expr(spec, a.kv_len) << ";\n"
     << "  if (l.batch <= 0 || l.sq <= 0) return;   /* an empty o: nothing to do */\n"
     << "  l.plan = tsr_make_plan(l.batch, l.sq, l.skv);\n"
     << "  l.scratch = (tsr_scratch*)ctx->workspace;\n"
     << "  l.partials = (tsr_partial*)(l.scratch + ctx->worker_count);\n"
     << "  tsr_run(ctx, l.plan.blocks * l.plan.splits, tsr_task, &l);\n"
     << "  if (l.plan.splits > 1) tsr_run(ctx, l.plan.blocks, tsr_merge, &l);\n"
     << "}\n\n"
     << emit_workspace_head(spec, choice.entry_suffix)
     << "  const tsr_plan p = tsr_make_plan(" << dim_expr(spec, a.batch) << ", " << dim_expr(spec, a.q_len) << ", "
     << dim_expr(spec, a.kv_len) << ");\n"
     << "  const uint64_t partials = p.splits > 1 ? (uint64_t)(p.blocks * p.splits) * sizeof(tsr_partial) : 0;\n"
     << "  return (uint64_t)worker_count * sizeof(tsr_scratch) + partials;\n}\n";
  return os.str();
}

}  // namespace tsr::x86
