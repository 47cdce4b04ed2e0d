// The attention family (docs/spec-format.md "attention", docs/oracle.md):
// the float64 reference against an unfused composition written from the
// definition, its defined result for rows without keys, and the x86 kernels
// over head dimensions, GQA ratios, layouts, masks, softcap, ALiBi and lse,
// judged by the oracle, which also tells a kernel of another mask apart.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "launch/stub_launcher.h"
#include "oracle/input_generator.h"
#include "oracle/oracle.h"
#include "oracle/reference.h"
#include "spec/abi.h"
#include "spec/half.h"
#include "attention_cases.h"
#include "x86_fixture.h"

namespace tsr {
namespace {

using attention_cases::Attn;
using attention_cases::attention;
using attention_cases::attention_variants;

// Random storage-rounded inputs for every input binding, in ABI order.
std::vector<std::vector<double>> random_inputs(const KernelSpec& spec, const std::map<std::string, int64_t>& dims,
                                               double magnitude = 1.0) {
  const KernelAbi abi = kernel_abi(spec);
  std::mt19937_64 rng(27);
  std::uniform_real_distribution<double> u(-magnitude, magnitude), slope(0.01, 0.5);
  std::vector<std::vector<double>> in;
  for (const Binding* b : abi.buffers()) {
    if (b->role != Role::input) continue;
    std::vector<double>& v = in.emplace_back(static_cast<size_t>(*abi.element_count(*b, dims)));
    for (double& x : v) x = round_to_storage(b->name == "alibi_slopes" ? slope(rng) : u(rng), b->dtype);
  }
  return in;
}

// The definition, unfused: the full score matrix of one (b, h) with every
// masked entry dropped, a max-subtracted softmax over what is left, then
// P·V, in long double, with tensors addressed through explicit strides.
struct Naive {
  std::vector<long double> o, lse;   // o in the spec's layout; lse [B, Hq, Sq]
};

Naive naive_attention(const KernelSpec& spec, const std::vector<std::vector<double>>& in, int64_t B, int64_t Sq,
                      int64_t Skv) {
  const AttentionSpec& a = spec.attention();
  const int64_t Hq = a.q_heads.value, Hkv = a.kv_heads.value, D = a.head_dim.value, Dv = a.v_head_dim.value;
  // Strides of (b, s, h) for a tensor of `len` rows and `heads` heads of width x.
  auto at = [&](int64_t b, int64_t s, int64_t h, int64_t len, int64_t heads, int64_t x) {
    const bool bshd = a.layout == AttentionLayout::bshd;
    return b * len * heads * x + s * (bshd ? heads * x : x) + h * (bshd ? x : len * x);
  };
  Naive n;
  n.o.assign(static_cast<size_t>(B * Sq * Hq * Dv), 0.0L);
  n.lse.assign(static_cast<size_t>(B * Hq * Sq), -INFINITY);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t g = h * Hkv / Hq;   // the KV head: heads split into Hkv equal groups
      for (int64_t i = 0; i < Sq; ++i) {
        // Query i sits at absolute position i + (Skv - Sq) among the keys.
        const int64_t pos = i + Skv - Sq;
        std::vector<std::pair<int64_t, long double>> kept;
        for (int64_t j = 0; j < Skv; ++j) {
          if (a.causal && j > pos) continue;
          if (a.window && (pos - j > a.window->left || j - pos > a.window->right)) continue;
          long double dot = 0.0L;
          for (int64_t d = 0; d < D; ++d)
            dot += static_cast<long double>(in[0][static_cast<size_t>(at(b, i, h, Sq, Hq, D) + d)]) *
                   in[1][static_cast<size_t>(at(b, j, g, Skv, Hkv, D) + d)];
          long double s = static_cast<long double>(a.scale) * dot;
          if (a.softcap) s = *a.softcap * std::tanh(s / *a.softcap);
          if (a.alibi) s -= in[3][static_cast<size_t>(h)] * std::fabs(static_cast<long double>(pos - j));
          kept.push_back({j, s});
        }
        if (kept.empty()) continue;
        long double mx = -INFINITY, sum = 0.0L;
        for (const auto& [j, s] : kept) mx = std::max(mx, s);
        for (const auto& [j, s] : kept) sum += std::exp(s - mx);
        for (const auto& [j, s] : kept)
          for (int64_t d = 0; d < Dv; ++d)
            n.o[static_cast<size_t>(at(b, i, h, Sq, Hq, Dv) + d)] +=
                std::exp(s - mx) / sum * in[2][static_cast<size_t>(at(b, j, g, Skv, Hkv, Dv) + d)];
        n.lse[static_cast<size_t>((b * Hq + h) * Sq + i)] = mx + std::log(sum);
      }
    }
  return n;
}

std::vector<Attn> reference_cases() {
  std::vector<Attn> cases;
  Attn c;
  c.lse = true;
  cases.push_back(c);   // MHA-like groups of 2, bshd, no mask
  c.layout = AttentionLayout::bhsd, c.hq = 6, c.hkv = 2, c.causal = true;
  cases.push_back(c);   // GQA 3, causal, bhsd
  c.hq = 8, c.hkv = 1, c.causal = false, c.window = AttentionWindow{3, 2}, c.dv = 40;
  cases.push_back(c);   // MQA, bidirectional window, Dv != D
  c.causal = true, c.window = AttentionWindow{4, 0}, c.softcap = 2.0, c.alibi = true, c.scale = 0.3;
  cases.push_back(c);   // everything at once
  return cases;
}

TEST(AttentionReference, MatchesTheUnfusedDefinition) {
  int checked = 0;
  for (const Attn& c : reference_cases())
    for (const auto& [B, Sq, Skv] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{2, 7, 11}, {1, 9, 4}, {1, 1, 13}}) {
      const KernelSpec spec = attention(c);
      const std::map<std::string, int64_t> dims = {{"batch", B}, {"q_len", Sq}, {"kv_len", Skv}};
      const std::vector<std::vector<double>> in = random_inputs(spec, dims);
      const Naive naive = naive_attention(spec, in, B, Sq, Skv);
      const std::vector<ReferenceValue> ref = reference_output(spec, in, dims, 1);
      ASSERT_EQ(ref.size(), naive.o.size() + naive.lse.size());
      for (const ReferenceValue& r : ref) {
        const long double want = r.output == 0 ? naive.o[static_cast<size_t>(r.index)] : naive.lse[static_cast<size_t>(r.index)];
        if (std::isinf(want)) {
          EXPECT_EQ(r.value, static_cast<double>(want)) << "lse " << r.index;
        } else {
          EXPECT_NEAR(r.value, static_cast<double>(want), 1e-6 * (1.0 + std::fabs(static_cast<double>(want))))
              << spec.attention().q_heads.value << " heads, output " << r.output << " index " << r.index;
        }
        ++checked;
      }
    }
  EXPECT_GT(checked, 3000);
}

// Causal with q_len 5 > kv_len 3 (bottom-right aligned): query rows 0 and 1
// have no key. They are defined as o = 0 and lse = -inf; row 2 sees key 0 only.
TEST(AttentionReference, RowsWithoutKeysAreZeroAndMinusInfinity) {
  Attn c;
  c.hq = c.hkv = 1, c.d = c.dv = 8, c.causal = true, c.lse = true;
  const KernelSpec spec = attention(c);
  const std::map<std::string, int64_t> dims = {{"batch", 1}, {"q_len", 5}, {"kv_len", 3}};
  const std::vector<std::vector<double>> in = random_inputs(spec, dims);
  std::map<std::pair<int, int64_t>, double> got;
  for (const ReferenceValue& r : reference_output(spec, in, dims, 1)) got[{r.output, r.index}] = r.value;
  for (int64_t d = 0; d < 8; ++d) {
    EXPECT_EQ(got.at({0, 0 * 8 + d}), 0.0);
    EXPECT_EQ(got.at({0, 1 * 8 + d}), 0.0);
    EXPECT_EQ(got.at({0, 2 * 8 + d}), round_to_storage(in[2][static_cast<size_t>(d)], DType::f32));   // v of key 0
  }
  EXPECT_EQ(got.at({1, 0}), -INFINITY);
  EXPECT_EQ(got.at({1, 1}), -INFINITY);
  EXPECT_TRUE(std::isfinite(got.at({1, 2})));
}

// Logits in the thousands overflow a softmax that does not subtract the row
// maximum (e^89 is past f32); the definition stays finite.
TEST(AttentionReference, LogitsPastTheExponentRangeStayFinite) {
  Attn c;
  c.hq = c.hkv = 1, c.d = c.dv = 16, c.lse = true;
  const KernelSpec spec = attention(c);
  const std::map<std::string, int64_t> dims = {{"batch", 1}, {"q_len", 4}, {"kv_len", 9}};
  const std::vector<std::vector<double>> in = random_inputs(spec, dims, 40.0);
  for (const ReferenceValue& r : reference_output(spec, in, dims, 1)) EXPECT_TRUE(std::isfinite(r.value)) << r.index;
}

class X86Attention : public testing::X86Fixture {
 protected:
  Expected<Artifact> build(const KernelSpec& spec, const std::string& arch) {
    Expected<std::string> src = target_->emit(spec, arch);
    if (!src) return src.take_error();
    return target_->compile(spec, arch, *src);
  }
};

TEST_F(X86Attention, EveryVariantPassesTheOracleOnV2AndTheBestTier) {
  const std::string best = target_->device("v4").present ? "v4" : target_->device("v3").present ? "v3" : "v2";
  std::vector<std::string> archs = {"v2"};
  if (best != "v2") archs.push_back(best);
  int passed = 0;
  for (const KernelSpec& spec : attention_variants())
    for (const std::string& arch : archs) {
      SCOPED_TRACE(spec.name + " x86:" + arch);
      Expected<Artifact> art = build(spec, arch);
      ASSERT_TRUE(art.ok()) << art.error().message();
      Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
      ASSERT_TRUE(stub.ok()) << stub.error().message();
      const OracleReport r = run_oracle(spec, **stub, *art);
      EXPECT_EQ(r.verdict, Verdict::pass) << r.reason;
      EXPECT_EQ(r.trials, kTrialCount);
      passed += r.verdict == Verdict::pass;
    }
  EXPECT_GE(passed, 6);
}

// The kernel writes o = 0 and lse = -inf for rows without keys, whatever the
// poison in its output buffers.
TEST_F(X86Attention, RowsWithoutKeysWriteZerosAndMinusInfinity) {
  Attn c;
  c.hq = c.hkv = 1, c.d = c.dv = 8, c.causal = true, c.lse = true;
  const KernelSpec spec = attention(c);
  Expected<Artifact> art = build(spec, "v2");
  ASSERT_TRUE(art.ok()) << art.error().message();
  Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
  ASSERT_TRUE(stub.ok()) << stub.error().message();
  LaunchArgs args;
  args.scalars = {1, 5, 3};   // batch, q_len, kv_len
  for (int64_t count : {5 * 8, 3 * 8, 3 * 8}) args.buffers.emplace_back(static_cast<size_t>(count) * 4, 0x3f);
  args.buffers.emplace_back(5 * 8 * 4, 0xff);   // o poisoned with NaNs
  args.buffers.emplace_back(5 * 4, 0xff);       // lse
  ASSERT_TRUE((*stub)->launch(spec, *art, args).ok());
  const float* o = reinterpret_cast<const float*>(args.payload(3));
  const float* lse = reinterpret_cast<const float*>(args.payload(4));
  for (int d = 0; d < 16; ++d) EXPECT_EQ(o[d], 0.0f) << d;
  EXPECT_EQ(lse[0], -INFINITY);
  EXPECT_EQ(lse[1], -INFINITY);
  for (int d = 16; d < 40; ++d) EXPECT_TRUE(std::isfinite(o[d])) << d;
}

// The oracle tells apart a kernel built for another mask, window, softcap or
// scale: the artifact of `built` judged as `judged` (same ABI) fails.
TEST_F(X86Attention, OracleRejectsAKernelOfAnotherMaskOrScale) {
  Attn base;
  base.causal = true;
  std::vector<std::pair<Attn, Attn>> pairs;
  Attn other = base;
  other.causal = false;
  pairs.push_back({base, other});
  other = base, other.window = AttentionWindow{5, 0};
  pairs.push_back({base, other});
  other = base, other.softcap = 1.0;
  pairs.push_back({base, other});
  other = base, other.scale = 0.2;
  pairs.push_back({base, other});
  for (const auto& [built, judged] : pairs) {
    const KernelSpec built_spec = attention(built), judged_spec = attention(judged);
    Expected<Artifact> art = build(built_spec, "v2");
    ASSERT_TRUE(art.ok()) << art.error().message();
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, judged_spec, *art);
    ASSERT_TRUE(stub.ok()) << stub.error().message();
    const OracleReport r = run_oracle(judged_spec, **stub, *art);
    EXPECT_EQ(r.verdict, Verdict::fail) << "a kernel of another attention passed";
  }
}

}  // namespace
}  // namespace tsr
