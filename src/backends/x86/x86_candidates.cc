// Tunables of the x86 emitters and the candidates generated from them
// (docs/targets-x86.md, "Tunables and generated candidates").
// The register budget follows the x86-64 psABI levels: 16 vector registers
// for SSE/AVX2 (v2, v3), 32 for AVX-512 (v4).
#include <string>
#include <vector>

#include "target/target_candidates.h"
#include "x86/x86_internal.h"

namespace tsr::x86 {

namespace {

// One row of a tier's candidate table: the tiling, named by its tunables.
struct TilingRow {
  int mr, nv, kc, mc;
  int tasks_wanted = 16;
  bool skinny_plan = true;
};

// Beyond the default, per register file size: shapes where each is a
// plausible winner. A short mr wastes no FMAs on a decode M of 1-4 rows; a
// tall or wide tile reuses each load more on large squares; kc trades the
// packed B panel's L1 residency against fewer passes over C's partial sums.
// Every row fits fits_registers() (tests check it too).
const std::vector<TilingRow>& rows_for(const Tier& tier) {
  static const std::vector<TilingRow> k32 = {
      {4, 2, 256, 128},        // 4 x 32: decode and short M (11 registers)
      {14, 2, 256, 126},       // 14 x 32: large squares (31 registers)
      {6, 4, 256, 120},        // 6 x 64: wide N (29 registers)
      {8, 2, 128, 128},        // the default tile, shallower packed blocks
      {8, 2, 256, 128, 64},    // the default tile, 4x finer task split (many cores, few row blocks)
  };
  static const std::vector<TilingRow> k16 = {
      {4, 2, 256, 128},        // decode and short M (11 registers)
      {4, 3, 256, 128},        // NR = 3 vectors (16 registers)
      {2, 4, 256, 64},         // M of 1-2 rows, wide N (13 registers)
      {6, 2, 128, 120},        // the default tile, shallower packed blocks
      {6, 2, 512, 60},         // the default tile, deeper packed blocks
  };
  return tier.vector_registers >= 32 ? k32 : k16;
}

std::string tiling_name(const MatmulTiling& t, const MatmulTiling& base) {
  std::string name = "mr" + std::to_string(t.mr) + ".nv" + std::to_string(t.nv) + ".kc" + std::to_string(t.kc) +
                     ".mc" + std::to_string(t.mc);
  if (t.tasks_wanted != base.tasks_wanted) name += ".t" + std::to_string(t.tasks_wanted);
  if (t.skinny_plan != base.skinny_plan) name += t.skinny_plan ? ".skinny" : ".noskinny";
  return name;
}

std::map<std::string, std::string> tiling_tunables(const MatmulTiling& t) {
  return {{"mr", std::to_string(t.mr)},
          {"nv", std::to_string(t.nv)},
          {"kc", std::to_string(t.kc)},
          {"mc", std::to_string(t.mc)},
          {"tasks", std::to_string(t.tasks_wanted)},
          {"skinny", t.skinny_plan ? "1" : "0"}};
}

// The kernels whose emitter has no tunables here: AMX tiles and the
// run-time VDPBF16PS pair path (their blocking is fixed by the instruction's
// tile shapes), rowwise (one pass per row, nothing to block) and attention
// (its blocks are fixed per head dimension).
bool offers_only_default(const KernelSpec& spec, const Tier& tier) {
  return spec.family == Family::rowwise || spec.family == Family::attention || uses_amx(spec, tier) ||
         (spec.family == Family::matmul && uses_bf16dot(spec, tier));
}

}  // namespace

// On Zen 4, 8 x 32 measured level with 14 x 32 and with OpenBLAS
// (docs/performance.md); 8 x 32 leaves registers free.
MatmulTiling default_tiling(const Tier& tier) {
  if (tier.arch == "v4") return MatmulTiling{8, 2, 256, 128, 4l << 20};
  if (tier.arch == "v3") return MatmulTiling{6, 2, 256, 120, 4l << 20};
  return MatmulTiling{6, 2, 256, 120, 2l << 20};
}

bool fits_registers(const MatmulTiling& t, const Tier& tier) {
  return t.mr * t.nv + t.nv + 1 <= tier.vector_registers && t.mr > 0 && t.nv > 0 && t.kc > 0 && t.mc >= t.mr &&
         t.mc % t.mr == 0;
}

std::vector<GeneratedCandidate> candidates_for(const KernelSpec& spec, const Tier& tier) {
  std::vector<GeneratedCandidate> out = {GeneratedCandidate{"default", {}}};
  if (offers_only_default(spec, tier)) return out;
  if (spec.family == Family::elementwise) {
    for (int unroll : {2, 4})
      out.push_back({"unroll" + std::to_string(unroll), {{"unroll", std::to_string(unroll)}}});
    return out;
  }
  const MatmulTiling base = default_tiling(tier);
  for (const TilingRow& row : rows_for(tier)) {
    MatmulTiling t = base;
    t.mr = row.mr, t.nv = row.nv, t.kc = row.kc, t.mc = row.mc;
    t.tasks_wanted = row.tasks_wanted, t.skinny_plan = row.skinny_plan;
    out.push_back({tiling_name(t, base), tiling_tunables(t)});
  }
  return out;
}

EmitChoice choice_for(const KernelSpec& spec, const Tier& tier, const GeneratedCandidate& candidate) {
  EmitChoice choice;
  choice.unroll = candidate_tunable(candidate, "unroll", 1);
  if (spec.family != Family::matmul) return choice;
  MatmulTiling& t = choice.tiling = default_tiling(tier);
  t.mr = candidate_tunable(candidate, "mr", t.mr);
  t.nv = candidate_tunable(candidate, "nv", t.nv);
  t.kc = candidate_tunable(candidate, "kc", t.kc);
  t.mc = candidate_tunable(candidate, "mc", t.mc);
  t.tasks_wanted = candidate_tunable(candidate, "tasks", t.tasks_wanted);
  t.skinny_plan = candidate_tunable(candidate, "skinny", t.skinny_plan ? 1 : 0) != 0;
  return choice;
}

std::string emit_source(const KernelSpec& spec, const Tier& tier, const EmitChoice& choice) {
  switch (spec.family) {
    case Family::elementwise: return emit_elementwise(spec, tier, choice);
    case Family::matmul: return tier.amx ? emit_matmul_amx(spec, tier, choice) : emit_matmul(spec, tier, choice);
    case Family::rowwise: return emit_rowwise(spec, tier, choice);
    case Family::attention: return emit_attention(spec, tier, choice);
  }
  return "";
}

}  // namespace tsr::x86
