// The oracle must pass a correct kernel, catch an O(1) error in a kernel's
// output or in its emitted source, catch nondeterminism, and never report a
// target without a device as passed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "compile/compile.h"
#include "launch/stub_launcher.h"
#include "oracle/compare.h"
#include "oracle/input_generator.h"
#include "oracle/oracle.h"
#include "oracle/reference.h"
#include "spec/abi.h"
#include "spec_test_util.h"
#include "spec/half.h"
#include "registry/registry.h"
#include "x86_fixture.h"

namespace tsr {
namespace {

using testing::must_decode;

const char* kSoftmax = R"(tesserac: 1
kernel: sm
family: rowwise
dtype: bf16
accumulate: f32
op: softmax
shape: {rows: r, cols: 300}
accuracy: {kind: reference_exact}
determinism: deterministic
)";

const char* kGemm = R"(tesserac: 1
kernel: gm
family: matmul
dtype: f32
accumulate: f32
shape: {M: M, N: N, K: 70}
layout: {a: col, b: row}
epilogue: [bias, relu]
accuracy: {kind: reference_exact}
determinism: deterministic
)";

// A launcher whose "kernel" is the reference itself, with knobs for failure modes.
class FakeLauncher final : public Launcher {
 public:
  bool present = true;
  bool emulated = false;   // the launcher claims to emulate the device (DeviceInfo::emulated)
  bool flaky = false;
  double floor = 0.0;
  std::function<void(LaunchArgs&)> scribble;   // runs after the correct outputs are written
  mutable int runs = 0;

  DeviceInfo device(const std::string&) const override {
    DeviceInfo info = absent_device(present ? "fake device" : "no fake device attached");
    info.present = present;
    info.emulated = emulated;
    return info;
  }
  BudgetFloor budget_floor(const KernelSpec&) const override { return {floor, floor}; }
  Status launch(const KernelSpec& spec, const Artifact&, LaunchArgs& args) const override {
    ++runs;
    const KernelAbi abi = kernel_abi(spec);
    std::map<std::string, int64_t> scalars;
    const std::vector<std::string> names = abi.scalar_names();
    for (size_t i = 0; i < names.size(); ++i) scalars[names[i]] = args.scalars[i];
    std::vector<std::vector<double>> inputs;
    const auto buffers = abi.buffers();
    for (size_t b = 0; b + 1 < buffers.size(); ++b) {
      std::vector<double> v(args.payload_size(b) / dtype_size(buffers[b]->dtype));
      for (size_t i = 0; i < v.size(); ++i) v[i] = load_element(args.payload(b), buffers[b]->dtype, i);
      inputs.push_back(v);
    }
    const size_t out_slot = args.buffers.size() - 1;
    uint8_t* out = args.payload(out_slot);
    for (const ReferenceValue& r : reference_output(spec, inputs, scalars, 1)) {
      double v = r.value;
      if (flaky && runs % 2 == 0 && r.index == 0) v = std::nextafter(static_cast<float>(v), INFINITY);
      store_element(out, abi.buffers().back()->dtype, r.index, v);
    }
    if (scribble) scribble(args);
    return ok();
  }
};

TEST(Compare, BudgetIsAtolPlusRtolTimesRef) {
  EXPECT_TRUE(within_budget(1.0 + 1e-3, 1.0, {1e-3, 0}));
  EXPECT_FALSE(within_budget(1.0 + 2e-3, 1.0, {1e-3, 0}));
  EXPECT_TRUE(within_budget(110.0, 100.0, {0, 0.1}));
  EXPECT_FALSE(within_budget(111.0, 100.0, {0, 0.1}));
  EXPECT_TRUE(within_budget(INFINITY, INFINITY, {0, 0}));
  EXPECT_FALSE(within_budget(-INFINITY, INFINITY, {1, 1}));
  EXPECT_FALSE(within_budget(1e30, INFINITY, {1, 1}));
  EXPECT_TRUE(within_budget(NAN, NAN, {0, 0}));
  EXPECT_FALSE(within_budget(NAN, 1.0, {1e9, 1e9}));
}

TEST(Compare, ReportsFirstFailureAndMaxima) {
  std::vector<ReferenceValue> ref = {{0, 1.0}, {1, 2.0}, {2, 4.0}};
  std::vector<double> out = {1.0, 2.5, 4.1};
  Comparison c = compare_output(ref, out, {0.01, 0.0});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.failures, 2);
  EXPECT_EQ(c.first_fail_index, 1);
  EXPECT_DOUBLE_EQ(c.first_fail_out, 2.5);
  EXPECT_DOUBLE_EQ(c.max_abs_err, 0.5);
  // rtol 0: the relative term never decides, so no relative error is reported.
  EXPECT_EQ(c.rel_checked, 0);
  EXPECT_DOUBLE_EQ(c.max_rel_err, 0.0);
  EXPECT_DOUBLE_EQ(c.budget_use, 50.0);
  EXPECT_TRUE(c.absolute_term_decided);
}

// max_rel_err counts only elements where the relative term can decide
// (|ref| >= atol / rtol): a near-zero reference no longer reports a
// relative error of 1 for an error the absolute term allows.
TEST(Compare, RelativeErrorOnlyAboveTheThreshold) {
  const Budget b{1e-3, 1e-2};   // threshold 0.1
  EXPECT_DOUBLE_EQ(relative_threshold(b), 0.1);
  EXPECT_EQ(relative_threshold({1e-3, 0.0}), INFINITY);
  std::vector<ReferenceValue> ref = {{0, 1e-4}, {1, 10.0}, {2, 0.1}};
  std::vector<double> out = {2e-4, 10.05, 0.1};
  Comparison c = compare_output(ref, out, b);
  EXPECT_TRUE(c.pass);
  EXPECT_EQ(c.rel_checked, 2);                    // 10.0 and 0.1, not 1e-4
  EXPECT_NEAR(c.max_rel_err, 0.05 / 10.0, 1e-12);   // not 1e-4 / 1e-4 = 1
  // Worst use of the budget: element 1, 0.05 of 1e-3 + 0.1 allowed; the relative term is larger there.
  EXPECT_NEAR(c.budget_use, 0.05 / 0.101, 1e-12);
  EXPECT_FALSE(c.absolute_term_decided);
  // Element 0 decides when it uses more: the absolute term is larger there.
  out[0] = 1e-4 + 1.05e-3;
  c = compare_output(ref, out, b);
  EXPECT_NEAR(c.budget_use, 1.05e-3 / (1e-3 + 1e-6), 1e-9);
  EXPECT_TRUE(c.absolute_term_decided);
}

TEST(Budget, DefaultsPerDtypeAndRunnerFloor) {
  KernelSpec s = must_decode(kSoftmax);
  Budget d = effective_budget(s, {0, 0});
  EXPECT_DOUBLE_EQ(d.atol, default_budget(DType::bf16).atol);
  EXPECT_GT(default_budget(DType::bf16).rtol, default_budget(DType::f16).rtol);
  EXPECT_GT(default_budget(DType::f16).rtol, default_budget(DType::f32).rtol);
  EXPECT_GT(default_budget(DType::f32).rtol, 0.0);   // exact means "no worse than the reference", not 0
  Budget floored = effective_budget(s, {1.0, 0.0});
  EXPECT_DOUBLE_EQ(floored.atol, 1.0);
  EXPECT_DOUBLE_EQ(floored.rtol, d.rtol);
}

TEST(Oracle, PassesACorrectKernel) {
  FakeLauncher t;
  for (const char* yaml : {kSoftmax, kGemm}) {
    OracleReport r = run_oracle(must_decode(yaml), t, Artifact{});
    EXPECT_EQ(r.verdict, Verdict::pass) << r.reason;
    EXPECT_EQ(r.trials, kTrialCount);
    EXPECT_TRUE(r.determinism_checked);
  }
}

// A kernel that writes outside its buffers or into its inputs fails the
// trial, naming the buffer and where, even when every output is right.
TEST(OracleGuards, WriteBeforeABufferFails) {
  FakeLauncher t;
  t.scribble = [](LaunchArgs& args) { args.payload(0)[-3] ^= 1; };
  OracleReport r = run_oracle(must_decode(kGemm), t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_EQ(r.reason, "trial 0 (uniform, M=97 N=130): the launch wrote before buffer 'a' (guard byte at offset -3 changed)");
}

TEST(OracleGuards, WriteAfterTheEndOfTheOutputFails) {
  FakeLauncher t;
  t.scribble = [](LaunchArgs& args) {
    const size_t out = args.buffers.size() - 1;
    args.payload(out)[args.payload_size(out)] = 0;   // one past the end: an off-by-one tail guard
  };
  OracleReport r = run_oracle(must_decode(kSoftmax), t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_EQ(r.reason, "trial 0 (uniform, r=37): the launch wrote after the end of buffer 'y' (guard byte at offset +0 "
                      "past its 22200 bytes changed)");
}

TEST(OracleGuards, ChangedInputFails) {
  FakeLauncher t;
  t.scribble = [](LaunchArgs& args) { args.payload(1)[4] ^= 0x40; };
  OracleReport r = run_oracle(must_decode(kGemm), t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_EQ(r.reason, "trial 0 (uniform, M=97 N=130): the launch changed input 'b' (element 1)");
}

// The trial sizes cover odd sizes, multiples of 8, 16, 32 and 128, size 1,
// one trial with every matmul extent a multiple of 8, and K that is a
// multiple of 8 but not of 32.
TEST(OracleTrials, SizesCoverAlignedOddAndUnitCases) {
  const KernelSpec mm = must_decode(R"(tesserac: 1
kernel: mm_all_runtime
family: matmul
dtype: bf16
accumulate: f32
shape: {M: M, N: N, K: K}
layout: {a: row, b: row}
accuracy: {kind: reference_exact}
determinism: deterministic
)");
  std::set<int64_t> seen;
  bool all_multiple_of_8 = false, k_partial = false;
  for (int i = 0; i < kTrialCount; ++i) {
    const auto s = trial_scalars(mm, i);
    for (const auto& [name, v] : s) seen.insert(v);
    all_multiple_of_8 |= s.at("M") % 8 == 0 && s.at("N") % 8 == 0 && s.at("K") % 8 == 0;
    k_partial |= s.at("K") % 8 == 0 && s.at("K") % 32 != 0;
  }
  EXPECT_TRUE(all_multiple_of_8);
  EXPECT_TRUE(k_partial);
  auto has = [&](auto pred) { return std::any_of(seen.begin(), seen.end(), pred); };
  EXPECT_TRUE(seen.count(1));
  EXPECT_TRUE(has([](int64_t v) { return v % 128 == 0; }));
  EXPECT_TRUE(has([](int64_t v) { return v % 2 == 1 && v > 1; }));
  for (const char* yaml : {kSoftmax}) {
    std::set<int64_t> rows;
    for (int i = 0; i < kTrialCount; ++i) rows.insert(trial_scalars(must_decode(yaml), i).at("r"));
    EXPECT_TRUE(rows.count(1) && rows.count(16) && rows.count(128) && rows.count(37));
  }
}

TEST(Oracle, AbsentDeviceIsNotRunNeverPass) {
  FakeLauncher t;
  t.present = false;
  OracleReport r = run_oracle(must_decode(kSoftmax), t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::not_run);
  EXPECT_EQ(r.reason, "no fake device attached");
  EXPECT_EQ(t.runs, 0);
}

// A valid spec whose static buffers the oracle cannot hold (N = 2^40 once
// ended in bad_alloc) is NOT_RUN with the reason; nothing is allocated or run.
// Evidence kinds never blur: the same correct kernel is PASS on a device and
// PASS_EMULATED on an emulating runner, and an emulated FAIL says it was one.
TEST(Oracle, EmulatedRunnerPassIsPassEmulatedNeverPass) {
  KernelSpec spec = must_decode(kGemm);
  FakeLauncher t;
  const OracleReport hardware = run_oracle(spec, t, Artifact{});
  EXPECT_EQ(hardware.verdict, Verdict::pass);
  EXPECT_EQ(hardware.reason, "");
  t.emulated = true;
  const OracleReport emulated = run_oracle(spec, t, Artifact{});
  EXPECT_EQ(emulated.verdict, Verdict::pass_emulated);
  EXPECT_STREQ(verdict_name(emulated.verdict), "PASS_EMULATED");
  EXPECT_EQ(emulated.reason, "emulated on the CPU: semantics, not hardware");
  EXPECT_EQ(emulated.trials, hardware.trials);
  EXPECT_TRUE(emulated.determinism_checked);
}

TEST(Oracle, EmulatedRunnerFailSaysItWasEmulated) {
  KernelSpec spec = must_decode(kGemm);
  FakeLauncher t;
  t.emulated = true;
  t.scribble = [](LaunchArgs& a) { a.payload(a.buffers.size() - 1)[3] ^= 0x40; };   // an exponent bit of element 0
  const OracleReport r = run_oracle(spec, t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_EQ(r.reason.rfind("emulated on the CPU: semantics, not hardware; trial 0 (", 0), 0u) << r.reason;
}

TEST(Oracle, EmulatedRunnerWithoutDeviceIsNotRun) {
  KernelSpec spec = must_decode(kGemm);
  FakeLauncher t;
  t.emulated = true;
  t.present = false;
  const OracleReport r = run_oracle(spec, t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::not_run);
  EXPECT_EQ(r.reason, "no fake device attached");
}

TEST(OracleBudget, StaticExtentsBeyondTheBudgetAreNotRun) {
  FakeLauncher t;
  const KernelSpec big = must_decode(R"(tesserac: 1
kernel: ew_four_tib
family: elementwise
dtype: f32
ops: [relu]
shape: {N: 1099511627776}
accuracy: {kind: reference_exact}
determinism: deterministic
)");
  EXPECT_DOUBLE_EQ(oracle_trial_bytes(big), 1099511627776.0 * (2 * (4 + 8) + 2 * 4 + 2 * (4 + 8) + 8 + 24));   // in0 (+ copy), out
  const OracleReport r = run_oracle(big, t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::not_run);
  EXPECT_EQ(r.reason,
            "the oracle would hold 88 TiB for one trial of these static extents, above its memory budget of 4 GiB");
  EXPECT_EQ(t.runs, 0);
  // Products of static extents beyond int64 are estimated, never overflowed.
  const KernelSpec wide = must_decode(R"(tesserac: 1
kernel: mm_wide
family: matmul
dtype: bf16
accumulate: f32
shape: {M: 281474976710656, N: M, K: 1}
layout: {a: row, b: row}
accuracy: {kind: reference_exact}
determinism: deterministic
)");
  EXPECT_GT(oracle_trial_bytes(wide), 1e15);
  EXPECT_EQ(run_oracle(wide, t, Artifact{}).verdict, Verdict::not_run);
}

// Every shipped spec fits the budget: the limit refuses only what cannot run.
TEST(OracleBudget, ShippedSpecsFitTheBudget) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs"}, diag);
  ASSERT_FALSE(diag.has_errors()) << diag.render();
  ASSERT_FALSE(specs.empty());
  for (const KernelSpec& spec : specs) EXPECT_LT(oracle_trial_bytes(spec), kOracleMemoryBudgetBytes / 4) << spec.name;
}

TEST(Oracle, InjectedOutputErrorFlipsVerdict) {
  FakeLauncher t;
  OracleOptions o;
  o.corrupt_outputs = [](LaunchArgs& args) {
    const size_t slot = args.buffers.size() - 1;
    uint8_t* out = args.payload(slot);
    if (args.payload_size(slot) >= 8) store_element(out, DType::f32, 1, load_element(out, DType::f32, 1) + 1.0);
  };
  OracleReport r = run_oracle(must_decode(kGemm), t, Artifact{}, o);
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_NE(r.reason.find("first at index 1"), std::string::npos) << r.reason;
  EXPECT_GE(r.max_abs_err, 0.99);
}

TEST(Oracle, NondeterministicKernelFailsDeterministicClaim) {
  FakeLauncher t;
  t.flaky = true;
  OracleReport r = run_oracle(must_decode(kGemm), t, Artifact{});
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_NE(r.reason.find("two runs on identical inputs differ"), std::string::npos) << r.reason;
}

TEST(Oracle, UnwrittenOutputFails) {
  class Lazy final : public Launcher {
   public:
    DeviceInfo device(const std::string&) const override { return {true, ""}; }
    BudgetFloor budget_floor(const KernelSpec&) const override { return {}; }
    Status launch(const KernelSpec&, const Artifact&, LaunchArgs&) const override { return ok(); }
  } lazy;
  EXPECT_EQ(run_oracle(must_decode(kSoftmax), lazy, Artifact{}).verdict, Verdict::fail);
}

TEST(Oracle, SeedReproducesInputs) {
  FakeLauncher t;
  OracleOptions a, b;
  a.seed = b.seed = 42;
  OracleReport ra = run_oracle(must_decode(kSoftmax), t, Artifact{}, a);
  OracleReport rb = run_oracle(must_decode(kSoftmax), t, Artifact{}, b);
  EXPECT_EQ(ra.seed, 42u);
  EXPECT_EQ(ra.max_abs_err, rb.max_abs_err);
}

// The same checks against real emitted and compiled x86 code, launched the
// way `tesserac test` launches it: by libtesserart from an in-memory archive.
class X86Mutation : public testing::X86Fixture {
 protected:
  std::unique_ptr<StubLauncher> through_stub(const KernelSpec& spec, const Artifact& art) const {
    Expected<std::unique_ptr<StubLauncher>> routed = make_in_memory_stub_launcher(*target_, spec, art);
    EXPECT_TRUE(routed.ok()) << routed.error().message();
    return routed ? std::move(*routed) : nullptr;
  }
};

TEST_F(X86Mutation, CompiledKernelPassesAndOutputCorruptionFails) {
  for (const char* yaml : {kSoftmax, kGemm}) {
    KernelSpec spec = must_decode(yaml);
    Expected<Artifact> art = compile_for_target(spec, {"x86", "v2"});
    ASSERT_TRUE(art.ok()) << art.error().message();
    std::unique_ptr<StubLauncher> stub = through_stub(spec, *art);
    ASSERT_TRUE(stub);
    EXPECT_EQ(run_oracle(spec, *stub, *art).verdict, Verdict::pass);
    EXPECT_EQ(stub->route(), "libtesserart memfd+dlopen");
    OracleOptions o;
    o.corrupt_outputs = [&](LaunchArgs& args) {
      const size_t slot = args.buffers.size() - 1;
      uint8_t* out = args.payload(slot);
      const DType t = spec.dtype;
      const int64_t n = static_cast<int64_t>(args.payload_size(slot)) / dtype_size(t);
      if (n > 0) store_element(out, t, n / 2, load_element(out, t, n / 2) + 1.0);
    };
    OracleReport r = run_oracle(spec, *stub, *art, o);
    EXPECT_EQ(r.verdict, Verdict::fail) << yaml;
  }
}

TEST_F(X86Mutation, ErrorInjectedIntoEmittedSourceFails) {
  // Export the emitted entry under another symbol and wrap it with one that
  // adds 1.0 to one output element: an O(1) miscompile the oracle must catch.
  KernelSpec spec = must_decode(kGemm);
  Expected<std::string> source = target_->emit(spec, "v2");
  ASSERT_TRUE(source.ok());
  const std::string entry = spec.name + "_tsr_entry";
  const std::string label = "__asm__(\"" + entry + "\")";
  std::string mutated = *source;
  ASSERT_NE(mutated.find(label), std::string::npos);
  mutated.replace(mutated.find(label), label.size(), "__asm__(\"" + entry + "_original\")");
  mutated += "__attribute__((visibility(\"default\"))) void " + entry +
             "(const tsr_kernel_context* ctx, void* const* buffers, const int64_t* scalars) {\n"
             "  tsr_entry(ctx, buffers, scalars);\n"
             "  if (scalars[0] > 0 && scalars[1] > 0) ((float*)buffers[3])[0] += 1.0f;\n}\n";
  Expected<Artifact> art = target_->compile(spec, "v2", mutated);
  ASSERT_TRUE(art.ok()) << art.error().message();
  std::unique_ptr<StubLauncher> stub = through_stub(spec, *art);
  ASSERT_TRUE(stub);
  OracleReport r = run_oracle(spec, *stub, *art);
  EXPECT_EQ(r.verdict, Verdict::fail);
  EXPECT_NE(r.reason.find("first at index 0"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace tsr
