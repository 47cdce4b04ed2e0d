// bf16 matmul on x86:v4 picks VDPBF16PS at run time where the CPU has
// AVX512-BF16 and widens to f32 elsewhere (x86_emit_matmul_bf16dot.cc). Both
// paths pass the oracle through libtesserart: the default build takes the one
// this CPU has, TSR_BF16DOT_OFF (a compile define for tests and the bench)
// forces the widening path, so on a CPU with AVX512-BF16 both run here.
#include <gtest/gtest.h>

#include <random>

#include "launch/stub_launcher.h"
#include "oracle/oracle.h"
#include "spec/half.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/test_executor.h"
#include "tests/unit/x86_fixture.h"

namespace tsr {
namespace {

using namespace spec_builders;

using testing::cpu_has_avx512_bf16;

class X86Bf16Dot : public testing::X86V4Fixture {
 protected:
  Expected<Artifact> build(const KernelSpec& spec, bool widen) {
    Expected<std::string> source = target_->emit(spec, "v4");
    if (!source) return source.take_error();
    EXPECT_NE(source->find("tsr_micro_kernel_pairs"), std::string::npos) << spec.name;
    return target_->compile(spec, "v4", (widen ? "#define TSR_BF16DOT_OFF 1\n" : "") + *source);
  }
};

TEST_F(X86Bf16Dot, BothPathsPassTheOracleWithOddTails) {
  using K = EpilogueOp::Kind;
  const std::vector<KernelSpec> specs = {
      matmul("dot_rowcol", DType::bf16, rt("M"), st(70), rt("K"), Layout::row, Layout::col,
             {epi(K::bias), epi(K::activation, Op::gelu_tanh)}),
      matmul("dot_colrow_k77", DType::bf16, st(19), st(33), st(77), Layout::col, Layout::row, {epi(K::residual)}),
      matmul("dot_k1", DType::bf16, st(9), st(40), st(1), Layout::row, Layout::row)};
  for (const KernelSpec& spec : specs)
    for (bool widen : {false, true}) {
      Expected<Artifact> art = build(spec, widen);
      ASSERT_TRUE(art.ok()) << art.error().message();
      Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
      ASSERT_TRUE(stub.ok()) << stub.error().message();
      const OracleReport r = run_oracle(spec, **stub, *art);
      EXPECT_EQ(r.verdict, Verdict::pass) << spec.name << (widen ? " widening" : " default") << ": " << r.reason;
    }
}

// The default build runs VDPBF16PS exactly where the CPU has AVX512-BF16:
// there its sums differ from the widening path's in some last bits.
TEST_F(X86Bf16Dot, TheDefaultPathIsVdpbf16psWhereTheCpuHasIt) {
  const KernelSpec spec = matmul("dot_path", DType::bf16, st(64), st(64), st(1024), Layout::row, Layout::row);
  LaunchArgs inputs;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (int64_t count : {64 * 1024, 1024 * 64, 64 * 64}) {
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * 2);
    for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), DType::bf16, i, dist(rng));
    inputs.buffers.push_back(std::move(bytes));
  }
  std::vector<std::vector<uint8_t>> outputs;
  for (bool widen : {false, true}) {
    Expected<Artifact> art = build(spec, widen);
    ASSERT_TRUE(art.ok()) << art.error().message();
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
    ASSERT_TRUE(stub.ok()) << stub.error().message();
    LaunchArgs args = inputs;
    ASSERT_TRUE((*stub)->launch(spec, *art, args).ok());
    outputs.push_back(args.buffers.back());
  }
  size_t differ = 0;
  for (size_t i = 0; i < outputs[0].size(); i += 2) differ += outputs[0][i] != outputs[1][i] || outputs[0][i + 1] != outputs[1][i + 1];
  if (cpu_has_avx512_bf16()) EXPECT_GT(differ, 0u) << "the default build ran the widening path";
  else EXPECT_EQ(differ, 0u) << "without AVX512-BF16 both builds widen";
}

// A C of one row block (M <= 128 on v4) splits differently on the two paths
// (docs/targets-x86.md, "Skinny C"): the widening path runs the skinny plan,
// one parallel_for over column tiles; the VDPBF16PS path packs bf16 pairs,
// which the skinny plan's per-task f32 packing does not, so it packs all of B
// per column block (256 columns at K = 4096, 64 at K = 11008), one
// parallel_for each, plus one for the block tasks where there is more than
// one. Either split is the shape's: outputs are bit-identical on 1 and 3 workers.
TEST_F(X86Bf16Dot, SkinnyCSplitsByThePathTaken) {
  struct Split {
    int64_t m, n, k;
    uint64_t widening_calls, widening_tasks, pair_calls, pair_tasks;
  };
  const std::vector<Split> splits = {
      {1, 4096, 4096, 1, 16, 16, 16 * 8},   // 16 column blocks x 8 NR = 32 panels; one block task each, run inline
      {128, 4096, 4096, 1, 16, 16, 16 * 8},
      {1, 4096, 11008, 1, 16, 64, 64 * 2},
      {1, 1024, 1024, 1, 16, 2, 32 + 4},    // one column block: 32 panels, then 4 tiles of 8 panels
      {1, 4096, 64, 1, 16, 2, 128 + 16},
  };
  const KernelSpec spec = matmul("dot_skinny", DType::bf16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  const bool pairs_here = cpu_has_avx512_bf16();
  for (bool widen : {false, true}) {
    Expected<Artifact> art = build(spec, widen);
    ASSERT_TRUE(art.ok()) << art.error().message();
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
    ASSERT_TRUE(stub.ok()) << stub.error().message();
    for (const Split& split : splits) {
      const std::string what = std::string(widen ? "widening" : "default") + " M=" + std::to_string(split.m) +
                               " N=" + std::to_string(split.n) + " K=" + std::to_string(split.k);
      LaunchArgs inputs;
      inputs.scalars = {split.m, split.n, split.k};
      std::mt19937 rng(5);
      std::uniform_real_distribution<double> dist(-1.0, 1.0);
      for (int64_t count : {split.m * split.k, split.k * split.n, split.m * split.n}) {
        std::vector<uint8_t> bytes(static_cast<size_t>(count) * 2);
        for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), DType::bf16, i, dist(rng));
        inputs.buffers.push_back(std::move(bytes));
      }
      const bool pairs = pairs_here && !widen;
      std::vector<uint8_t> first;
      for (uint32_t workers : {1u, 3u}) {
        LaunchArgs args = inputs;
        testing::ScrambledExecutor counting(workers, workers);
        {
          testing::ExecutorScope scope(counting.executor());
          ASSERT_EQ(scope.status(), TSR_OK);
          const Status s = (*stub)->launch(spec, *art, args);
          ASSERT_TRUE(s.ok()) << what << ": " << s.error().message();
        }
        EXPECT_EQ(counting.calls(), pairs ? split.pair_calls : split.widening_calls) << what;
        EXPECT_EQ(counting.tasks(), pairs ? split.pair_tasks : split.widening_tasks) << what;
        if (first.empty()) first = args.buffers.back();
        else EXPECT_TRUE(args.buffers.back() == first) << what << ": output differs from 1 worker";
      }
    }
  }
}

}  // namespace
}  // namespace tsr
