// Attention family for the CUDA and HIP dialects: a flash-style schedule in
// plain f32 (no tensor cores yet). A block of BQ threads owns BQ query rows of
// one (batch, query head); each thread keeps its query row and its output
// accumulator in registers and an online (max, sum) pair. K and V stream
// through shared memory in tiles of BK keys; the block visits only the key
// range its rows' mask allows (causal and window block skipping). Every
// order is fixed, so results are bit-reproducible.
#include <algorithm>
#include <string>

#include "gpu/gpu_emit_families.h"
#include "target/attention_text.h"

namespace tsr::gpu {

namespace {

constexpr int kRowsPerBlock = 64;   // BQ: query rows (threads) per block
// BK: keys per shared-memory tile. 8 (8 KiB of f32 K and V at D = Dv = 128):
// the CPU emulator's cost grows with the shared memory a barrier covers
// (16 keys took 2.8x and 32 keys 8x the emulated time of 8 on the MQA decode
// spec), and this plain-f32 kernel is the correctness path, not the fast one.
constexpr int kKeysPerTile = 8;

}  // namespace

EmittedKernel emit_attention(const KernelSpec& spec, const GpuDialect& dialect) {
  const AttentionSpec& a = spec.attention();
  const std::string D = std::to_string(a.head_dim.value), DV = std::to_string(a.v_head_dim.value);
  const std::string HQ = std::to_string(a.q_heads.value), HKV = std::to_string(a.kv_heads.value);
  const std::string q = buffer_param("q"), k = buffer_param("k"), v = buffer_param("v"), o = buffer_param("o");

  // A static q_len shorter than a block packs several query heads of one KV
  // head into it (decode: MQA-8 is one block per batch, K and V read once).
  const int64_t per_block = a.q_len.is_static() && a.q_len.value < kRowsPerBlock
                                ? std::min<int64_t>(a.group(), kRowsPerBlock / a.q_len.value) : 1;
  const int64_t head_blocks = (a.group() + per_block - 1) / per_block;
  std::string s = dialect.prelude;
  s += "// attention: " + std::string(attention_layout_name(a.layout)) + ", heads " + HQ + "/" + HKV + ", D " + D +
       ", Dv " + DV + ", " + attention_mask_description(a) + (a.softcap ? ", softcap" : "") + (a.alibi ? ", alibi" : "") +
       (a.lse ? ", lse" : "") + "\n";
  s += "enum { TSR_BQ = " + std::to_string(kRowsPerBlock) + ", TSR_BK = " + std::to_string(kKeysPerTile) + ", TSR_D = " +
       D + ", TSR_DV = " + DV + ", TSR_GROUP = " + std::to_string(a.group()) +
       ",\n       TSR_HEADS_PER_BLOCK = " + std::to_string(per_block) + ", TSR_HEAD_BLOCKS = " + std::to_string(head_blocks) +
       " };\n";
  // The key loops unroll on the GPU (sc[] stays in registers); the emulator,
  // which only needs the semantics, compiles them rolled (its compile time
  // grows with BK x D unrolled statements under its race checks).
  s += "#ifdef TSR_EMULATED\n#define TSR_KEY_UNROLL\n#else\n#define TSR_KEY_UNROLL _Pragma(\"unroll\")\n#endif\n";
  s += kernel_signature(spec, kRowsPerBlock) + " {\n";
  s += "  const long long batch = " + dim_expr(spec, a.batch) + ", sq = " + dim_expr(spec, a.q_len) +
       ", skv = " + dim_expr(spec, a.kv_len) + ";\n";
  // Block (x, y, z) = (query block, KV head x head block, batch); thread r is
  // query head h0 + r / per_head at position i0 + r % per_head.
  s += "  const long long b = blockIdx.z, i0 = (long long)blockIdx.x * TSR_BQ;\n";
  s += "  if (b >= batch || i0 >= sq) return;   // uniform per block: no barrier is skipped by some threads only\n";
  s += "  const long long hk = blockIdx.y / TSR_HEAD_BLOCKS, first = blockIdx.y % TSR_HEAD_BLOCKS * TSR_HEADS_PER_BLOCK;\n";
  s += "  const long long nh = TSR_GROUP - first < TSR_HEADS_PER_BLOCK ? TSR_GROUP - first : TSR_HEADS_PER_BLOCK;\n";
  s += "  const long long per_head = sq - i0 < TSR_BQ ? sq - i0 : TSR_BQ, off = skv - sq;\n";
  s += "  const bool row = threadIdx.x < nh * per_head;\n";
  s += "  const long long h = hk * TSR_GROUP + first + (row ? threadIdx.x / per_head : 0);\n";
  s += "  const long long i = i0 + (row ? threadIdx.x % per_head : 0), i1 = i0 + per_head;\n";
  // The keys any row of the block may attend: [j_lo, j_hi).
  s += "  long long j_lo = 0, j_hi = skv;\n";
  if (a.causal) s += "  if (i1 + off < j_hi) j_hi = i1 + off;   // causal: j <= i + off\n";
  if (a.window) {
    const std::string right = std::to_string(a.window->right) + "LL", left = std::to_string(a.window->left) + "LL";
    s += "  if (i1 + off + " + right + " < j_hi) j_hi = i1 + off + " + right + ";   // window: j <= i + off + right\n";
    s += "  if (i0 + off - " + left + " > j_lo) j_lo = i0 + off - " + left + ";   // window: j >= i + off - left\n";
  }
  s += "  __shared__ float ks[TSR_BK][TSR_D];\n  __shared__ float vs[TSR_BK][TSR_DV];\n";
  s += "  float qr[TSR_D], acc[TSR_DV];\n";
  s += "  const long long q_at = " + attention_row_offset(a.layout, "b", "i", "sq", "h", HQ, "TSR_D") + ";\n";
  s += "#pragma unroll\n  for (int d = 0; d < TSR_D; ++d) qr[d] = row ? tsr_ld(" + q + ", q_at + d) : 0.0f;\n";
  s += "#pragma unroll\n  for (int d = 0; d < TSR_DV; ++d) acc[d] = 0.0f;\n";
  s += "  float m = -__int_as_float(0x7f800000), l = 0.0f;\n";
  if (a.alibi) s += "  const float slope = tsr_ldg(" + buffer_param("alibi_slopes") + ", h);\n";
  s += "  for (long long t = j_lo; t < j_hi; t += TSR_BK) {\n";
  s += "    tsr_syncthreads();   // the previous tile is read by every thread\n";
  // One tile of `tile` (ks or vs, rows of `width`) from `src`, loaded by the whole block; keys past j_hi are 0.
  auto load_tile = [&](const std::string& tile, const std::string& src, const std::string& width) {
    s += "    for (int e = threadIdx.x; e < TSR_BK * " + width + "; e += TSR_BQ) {\n";
    s += "      const long long j = t + e / " + width + ";\n";
    s += "      " + tile + "[e / " + width + "][e % " + width + "] = j < j_hi ? tsr_ld(" + src + ", " +
         attention_row_offset(a.layout, "b", "j", "skv", "hk", HKV, width) + " + e % " + width + ") : 0.0f;\n    }\n";
  };
  load_tile("ks", k, "TSR_D");
  load_tile("vs", v, "TSR_DV");
  s += "    tsr_syncthreads();\n";
  s += "    if (!row) continue;\n";
  s += "    float sc[TSR_BK], tile_max = -__int_as_float(0x7f800000);\n";
  s += "    TSR_KEY_UNROLL\n    for (int jj = 0; jj < TSR_BK; ++jj) {\n";
  s += "      const long long j = t + jj, diagonal = i + off;\n";
  s += "      bool allowed = j < j_hi;\n";
  if (a.causal) s += "      allowed = allowed && j <= diagonal;\n";
  if (a.window)
    s += "      allowed = allowed && j >= diagonal - " + std::to_string(a.window->left) + "LL && j <= diagonal + " +
         std::to_string(a.window->right) + "LL;\n";
  if (!a.causal && !a.window) s += "      (void)diagonal;\n";
  s += "      float dot = 0.0f;\n";
  s += "#pragma unroll\n      for (int d = 0; d < TSR_D; ++d) dot += qr[d] * ks[jj][d];\n";
  s += "      float x = dot * " + float_literal(a.scale) + ";\n";
  if (a.softcap)
    s += "      x = " + float_literal(*a.softcap) + " * tanhf(x / " + float_literal(*a.softcap) + ");\n";
  if (a.alibi) s += "      x -= slope * (float)(diagonal > j ? diagonal - j : j - diagonal);\n";
  s += "      sc[jj] = allowed ? x : -__int_as_float(0x7f800000);\n";
  s += "      tile_max = fmaxf(tile_max, sc[jj]);\n    }\n";
  s += "    if (tile_max == -__int_as_float(0x7f800000)) continue;   // no key of this tile for this row\n";
  s += "    const float m_new = fmaxf(m, tile_max), corr = expf(m - m_new);\n";
  s += "    m = m_new;\n    l *= corr;\n";
  s += "#pragma unroll\n    for (int d = 0; d < TSR_DV; ++d) acc[d] *= corr;\n";
  s += "    TSR_KEY_UNROLL\n    for (int jj = 0; jj < TSR_BK; ++jj) {\n";
  s += "      const float p = expf(sc[jj] - m_new);   // 0 for a masked key\n";
  s += "      l += p;\n";
  s += "#pragma unroll\n      for (int d = 0; d < TSR_DV; ++d) acc[d] += p * vs[jj][d];\n    }\n  }\n";
  s += "  if (!row) return;\n";
  s += "  // A row without keys is defined as o = 0 and lse = -inf.\n";
  s += "  const float inv = l > 0.0f ? 1.0f / l : 0.0f;\n";
  s += "  const long long o_at = " + attention_row_offset(a.layout, "b", "i", "sq", "h", HQ, "TSR_DV") + ";\n";
  s += "#pragma unroll\n  for (int d = 0; d < TSR_DV; ++d) tsr_st(" + o + ", o_at + d, acc[d] * inv);\n";
  if (a.lse)
    s += "  tsr_stg(" + buffer_param("lse") + ", (b * " + HQ +
         " + h) * sq + i, l > 0.0f ? m + logf(l) : -__int_as_float(0x7f800000));\n";
  s += "}\n";

  EmittedKernel kernel{std::move(s), {}};
  kernel.plan.block_x = kRowsPerBlock;
  kernel.plan.grid_x = grid_cdiv(a.q_len, kRowsPerBlock);
  kernel.plan.grid_y = std::to_string(a.kv_heads.value * head_blocks);
  kernel.plan.grid_z = grid_cdiv(a.batch, 1);
  return kernel;
}

}  // namespace tsr::gpu
