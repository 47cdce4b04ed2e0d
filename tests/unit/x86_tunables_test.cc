// The x86 target's generated candidates (issue 14 item 3; docs/targets-x86.md,
// "Tunables and generated candidates"): "default" is emit() byte for byte,
// every candidate of every shipped matmul spec passes the oracle through
// libtesserart, and several candidates link into one shared object whose
// only exports are their entries.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "launch/stub_launcher.h"
#include "oracle/oracle.h"
#include "support/file_io.h"
#include "support/subprocess.h"
#include "x86/x86_internal.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/x86_fixture.h"

namespace tsr {
namespace {

using namespace spec_builders;

std::vector<KernelSpec> shipped() {
  std::string errors;
  std::vector<KernelSpec> specs = shipped_specs(&errors);
  EXPECT_EQ(errors, "");
  return specs;
}

const KernelSpec* shipped_named(const std::vector<KernelSpec>& specs, const std::string& name) {
  for (const KernelSpec& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> names_of(const std::vector<GeneratedCandidate>& candidates) {
  std::vector<std::string> names;
  for (const GeneratedCandidate& c : candidates) names.push_back(c.name);
  return names;
}

// Emit-only checks: no toolchain needed.
class X86Tunables : public ::testing::Test {
 protected:
  const Target& x86() { return *find_target("x86"); }
};

// emit_candidate(spec, arch, "default", "") is emit(spec, arch) for every
// shipped spec and tier: archives built before candidates keep their bytes.
TEST_F(X86Tunables, DefaultIsEmitByteForByteForEveryShippedSpec) {
  const std::vector<KernelSpec> specs = shipped();
  ASSERT_EQ(specs.size(), 27u);
  int compared = 0;
  for (const KernelSpec& spec : specs)
    for (const std::string& arch : x86().archs()) {
      if (!x86().unsupported_reason(spec, arch).empty()) continue;
      Expected<std::string> emitted = x86().emit(spec, arch);
      Expected<std::string> candidate = x86().emit_candidate(spec, arch, "default", "");
      ASSERT_TRUE(emitted.ok() && candidate.ok()) << spec.name << " " << arch;
      EXPECT_EQ(*candidate, *emitted) << spec.name << " on x86:" << arch;
      EXPECT_EQ(x86().generated_candidates(spec, arch).front().name, "default");
      EXPECT_TRUE(x86().generated_candidates(spec, arch).front().tunables.empty());
      ++compared;
    }
  EXPECT_EQ(compared, 27 * 4);
}

TEST_F(X86Tunables, F32MatmulCandidatesPerTier) {
  const KernelSpec spec = matmul("mm", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  const std::vector<std::string> narrow = {"default",          "mr4.nv2.kc256.mc128", "mr4.nv3.kc256.mc128",
                                           "mr2.nv4.kc256.mc64", "mr6.nv2.kc128.mc120", "mr6.nv2.kc512.mc60"};
  const std::vector<std::string> wide = {"default",             "mr4.nv2.kc256.mc128", "mr14.nv2.kc256.mc126",
                                         "mr6.nv4.kc256.mc120", "mr8.nv2.kc128.mc128", "mr8.nv2.kc256.mc128.t64"};
  EXPECT_EQ(names_of(x86().generated_candidates(spec, "v2")), narrow);
  EXPECT_EQ(names_of(x86().generated_candidates(spec, "v3")), narrow);
  EXPECT_EQ(names_of(x86().generated_candidates(spec, "v4")), wide);
  EXPECT_EQ(names_of(x86().generated_candidates(spec, "v4+amx")), wide);   // f32 takes the v4 code there
  const GeneratedCandidate& t64 = x86().generated_candidates(spec, "v4").back();
  const std::map<std::string, std::string> tunables = {{"mr", "8"}, {"nv", "2"},     {"kc", "256"},
                                                       {"mc", "128"}, {"tasks", "64"}, {"skinny", "1"}};
  EXPECT_EQ(t64.tunables, tunables);
}

// mr * nv accumulators + nv B vectors + one broadcast within the register
// file (16 below v4, 32 on v4), and mc a multiple of mr, for every candidate.
TEST_F(X86Tunables, EveryMatmulCandidateFitsItsTiersRegisters) {
  for (const std::string& arch : x86().archs()) {
    const x86::Tier tier = *x86::tier_for_arch(arch);
    for (DType t : {DType::f32, DType::f16}) {
      const KernelSpec spec = matmul("mm", t, rt("M"), st(96), rt("K"), Layout::col, Layout::row);
      const x86::Tier code = x86::code_tier(spec, tier);
      for (const GeneratedCandidate& c : x86::candidates_for(spec, code)) {
        const x86::MatmulTiling tiling = x86::choice_for(spec, code, c).tiling;
        EXPECT_TRUE(x86::fits_registers(tiling, code)) << arch << " " << c.name;
      }
    }
  }
  // The rule itself: 14 x 2 needs 31 registers, more than AVX2 has.
  x86::MatmulTiling tall = x86::default_tiling(*x86::tier_for_arch("v4"));
  tall.mr = 14, tall.mc = 126;
  EXPECT_TRUE(x86::fits_registers(tall, *x86::tier_for_arch("v4")));
  EXPECT_FALSE(x86::fits_registers(tall, *x86::tier_for_arch("v3")));
  tall.mc = 128;
  EXPECT_FALSE(x86::fits_registers(tall, *x86::tier_for_arch("v4")));   // mc not a multiple of mr
}

TEST_F(X86Tunables, OnlyDefaultWhereTheEmitterHasNoTunables) {
  const std::vector<std::string> only_default = {"default"};
  const KernelSpec rows = rowwise("sm", DType::f32, RowOp::softmax, rt("rows"), rt("cols"), false);
  const KernelSpec bf16 = matmul("mm", DType::bf16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  EXPECT_EQ(names_of(x86().generated_candidates(rows, "v3")), only_default);
  EXPECT_EQ(names_of(x86().generated_candidates(bf16, "v4")), only_default);       // VDPBF16PS pair path
  EXPECT_EQ(names_of(x86().generated_candidates(bf16, "v4+amx")), only_default);   // AMX tiles
  EXPECT_EQ(x86().generated_candidates(bf16, "v3").size(), 6u);                    // widened to f32 there
  const KernelSpec ew = elementwise("ew", DType::f16, {Op::add, Op::silu}, rt("n"));
  const std::vector<std::string> unrolls = {"default", "unroll2", "unroll4"};
  EXPECT_EQ(names_of(x86().generated_candidates(ew, "v2")), unrolls);
  Expected<std::string> unroll4 = x86().emit_candidate(ew, "v4", "unroll4", "");
  ASSERT_TRUE(unroll4.ok());
  EXPECT_NE(unroll4->find("#pragma clang loop unroll_count(4)\n  for (int64_t i = 0; i < count * VW; i += VW)"),
            std::string::npos);
}

TEST_F(X86Tunables, UnknownCandidateIsRefusedNamingTheKnownOnes) {
  const KernelSpec spec = matmul("mm_named", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  Expected<std::string> r = x86().emit_candidate(spec, "v3", "mr9.nv9.kc1.mc9", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind(), ErrorKind::invalid_input);
  EXPECT_EQ(r.error().message(),
            "kernel 'mm_named': unknown candidate 'mr9.nv9.kc1.mc9' for target x86:v3 (known: default, "
            "mr4.nv2.kc256.mc128, mr4.nv3.kc256.mc128, mr2.nv4.kc256.mc64, mr6.nv2.kc128.mc120, mr6.nv2.kc512.mc60)");
  Expected<std::string> bad_suffix = x86().emit_candidate(spec, "v3", "default", "_t-1");
  ASSERT_FALSE(bad_suffix.ok());
  EXPECT_EQ(bad_suffix.error().message(),
            "kernel 'mm_named': entry suffix '_t-1' is not made of letters, digits and '_'");
}

TEST_F(X86Tunables, EntrySuffixRenamesBothExportsOnly) {
  const KernelSpec spec = matmul("mm_sfx", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  Expected<std::string> plain = x86().emit_candidate(spec, "v4", "mr4.nv2.kc256.mc128", "");
  Expected<std::string> renamed = x86().emit_candidate(spec, "v4", "mr4.nv2.kc256.mc128", "_t1");
  ASSERT_TRUE(plain.ok() && renamed.ok());
  EXPECT_NE(renamed->find("__asm__(\"mm_sfx_tsr_entry_t1\");"), std::string::npos);
  EXPECT_NE(renamed->find("__asm__(\"mm_sfx_tsr_entry_t1_workspace\");"), std::string::npos);
  EXPECT_EQ(renamed->find("__asm__(\"mm_sfx_tsr_entry\")"), std::string::npos);
  EXPECT_EQ(x86::exported_entry(spec, *renamed), "mm_sfx_tsr_entry_t1");
  EXPECT_EQ(x86::exported_entry(spec, *plain), "mm_sfx_tsr_entry");
  EXPECT_EQ(x86::exported_entry(spec, "int x;"), "mm_sfx_tsr_entry");
  EXPECT_NE(plain->find("enum { MR = 4, NR = 32, KC = 256, MC = 128 };"), std::string::npos);
  // Only the names differ: the code is the candidate's.
  std::string expected = *plain;
  for (size_t at = 0; (at = expected.find("mm_sfx_tsr_entry", at)) != std::string::npos; at += 19)
    expected.insert(at + 16, "_t1");
  EXPECT_EQ(*renamed, expected);
}

// Defined global symbols of a shared object, from nm (binutils).
std::set<std::string> global_symbols(const std::vector<uint8_t>& so, std::string* why) {
  Expected<ScratchDir> dir = ScratchDir::create("tsr-tunables-nm");
  if (!dir) return {};
  const std::string path = dir->path() + "/k.so";
  if (!write_file(path, std::string(so.begin(), so.end())).ok()) return {};
  const ProcessResult r = run_process({"nm", "--defined-only", "--extern-only", path});
  if (r.exit_code != 0) *why = "nm failed: " + r.error + r.output;
  std::set<std::string> names;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) names.insert(line.substr(line.rfind(' ') + 1));
  return names;
}

// Two candidates, each its own translation unit with the same static helper
// names, link into one shared object exporting both entries and nothing else;
// the key covers both sources; the bytes are reproducible.
class X86TunablesCompile : public testing::X86Fixture {};

TEST_F(X86TunablesCompile, TwoSourcesLinkIntoOneObjectExportingBothEntries) {
  if (!target_->device("v3").present) GTEST_SKIP() << target_->device("v3").description;
  const KernelSpec spec =
      matmul("mm_two", DType::f32, rt("M"), st(40), rt("K"), Layout::row, Layout::col, {epi(EpilogueOp::Kind::bias)});
  Expected<std::string> a = target_->emit_candidate(spec, "v3", "mr2.nv4.kc256.mc64", "_a");
  Expected<std::string> b = target_->emit_candidate(spec, "v3", "default", "_b");
  ASSERT_TRUE(a.ok() && b.ok());
  Expected<Artifact> art = target_->compile_candidates(spec, "v3", {*a, *b});
  ASSERT_TRUE(art.ok()) << art.error().message();
  EXPECT_EQ(art->entry, "mm_two_tsr_entry_a");
  std::string why;
  const std::set<std::string> expected = {"mm_two_tsr_entry_a", "mm_two_tsr_entry_a_workspace", "mm_two_tsr_entry_b",
                                          "mm_two_tsr_entry_b_workspace"};
  EXPECT_EQ(global_symbols(art->bytes, &why), expected) << why;

  Expected<Artifact> again = target_->compile_candidates(spec, "v3", {*a, *b});
  Expected<Artifact> swapped = target_->compile_candidates(spec, "v3", {*b, *a});
  Expected<Artifact> one = target_->compile_candidates(spec, "v3", {*a});
  ASSERT_TRUE(again.ok() && swapped.ok() && one.ok());
  EXPECT_EQ(again->key, art->key);
  EXPECT_NE(swapped->key, art->key);
  EXPECT_EQ(swapped->entry, "mm_two_tsr_entry_b");
  EXPECT_NE(one->key, art->key);
  Expected<Artifact> single = target_->compile(spec, "v3", *a);   // one source: the key compile() always had
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->key, one->key);
  EXPECT_EQ(single->bytes, one->bytes);
  EXPECT_EQ(one->entry, "mm_two_tsr_entry_a");      // the entry that source exports
  EXPECT_EQ(single->entry, "mm_two_tsr_entry");     // compile() names the kernel's entry, as it always did

  // Both entries compute the right result through the stub.
  for (const std::string& entry : {"mm_two_tsr_entry_a", "mm_two_tsr_entry_b"}) {
    Artifact routed = *art;
    routed.entry = entry;
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, routed);
    ASSERT_TRUE(stub.ok()) << stub.error().message();
    const OracleReport r = run_oracle(spec, **stub, routed);
    EXPECT_EQ(r.verdict, Verdict::pass) << entry << ": " << r.reason;
  }
  EXPECT_FALSE(target_->compile_candidates(spec, "v3", {}).ok());
}

// Every candidate of every shipped matmul spec on v3 (the 16-register table)
// and v4 (the 32-register one), and gemm_f32's on v2 (the same table as v3 at
// 4 lanes; the rest of v2 would double the time for the same tilings), where
// this CPU runs the tier: all of a spec's candidates in one shared object
// (entry suffix _c<i>), each entry through the oracle via libtesserart.
class X86TunablesOracle : public testing::X86Fixture,
                          public ::testing::WithParamInterface<std::tuple<std::string, std::string>> {};

TEST_P(X86TunablesOracle, EveryCandidatePasses) {
  const auto& [name, arch] = GetParam();
  if (!target_->device(arch).present) GTEST_SKIP() << target_->device(arch).description;
  const std::vector<KernelSpec> specs = shipped();
  const KernelSpec* spec = shipped_named(specs, name);
  ASSERT_NE(spec, nullptr) << name;
  const std::vector<GeneratedCandidate> candidates = target_->generated_candidates(*spec, arch);
  const bool pair_path = spec->dtype == DType::bf16 && arch == "v4";   // only "default" there
  EXPECT_EQ(candidates.size(), spec->family == Family::elementwise ? 3u : pair_path ? 1u : 6u);
  std::vector<std::string> sources;
  for (size_t i = 0; i < candidates.size(); ++i) {
    Expected<std::string> source = target_->emit_candidate(*spec, arch, candidates[i].name, "_c" + std::to_string(i));
    ASSERT_TRUE(source.ok()) << source.error().message();
    sources.push_back(*source);
  }
  Expected<Artifact> art = target_->compile_candidates(*spec, arch, sources);
  ASSERT_TRUE(art.ok()) << art.error().message();
  for (size_t i = 0; i < candidates.size(); ++i) {
    Artifact routed = *art;
    routed.entry = spec->name + "_tsr_entry_c" + std::to_string(i);
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, *spec, routed);
    ASSERT_TRUE(stub.ok()) << stub.error().message();
    const OracleReport r = run_oracle(*spec, **stub, routed);
    EXPECT_EQ(r.verdict, Verdict::pass) << candidates[i].name << ": " << r.reason;
  }
}

std::string spec_and_tier(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(ShippedMatmul, X86TunablesOracle,
                         ::testing::Combine(::testing::Values("gemm_f32", "gemm_colcol_bias_silu_f32",
                                                              "gemm_residual_scale_clamp_f16", "gemm_relu_bf16",
                                                              "gemm_bias_gelu_bf16"),
                                            ::testing::Values("v3", "v4")),
                         spec_and_tier);
INSTANTIATE_TEST_SUITE_P(ShippedMatmulV2, X86TunablesOracle,
                         ::testing::Values(std::tuple<std::string, std::string>("gemm_f32", "v2")),
                         spec_and_tier);
// The elementwise unroll candidates, on a 16-bit spec with a transcendental
// and on the plain f32 add.
INSTANTIATE_TEST_SUITE_P(ShippedElementwise, X86TunablesOracle,
                         ::testing::Values(std::tuple<std::string, std::string>("ew_gelu_erf_neg_exp_f16", "v3"),
                                           std::tuple<std::string, std::string>("ew_add_f32", "v4")),
                         spec_and_tier);

}  // namespace
}  // namespace tsr
