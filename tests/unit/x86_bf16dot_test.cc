// bf16 matmul on x86:v4 picks VDPBF16PS at run time where the CPU has
// AVX512-BF16 and widens to f32 elsewhere (x86_emit_matmul_bf16dot.cc). Both
// paths pass the oracle through libtesserart: the default build takes the one
// this CPU has, TSR_BF16DOT_OFF (a compile define for tests and the bench)
// forces the widening path, so on a CPU with AVX512-BF16 both run here.
#include <cpuid.h>
#include <gtest/gtest.h>

#include <random>

#include "driver/stub_routed_target.h"
#include "oracle/oracle.h"
#include "support/half.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/x86_fixture.h"

namespace tsr {
namespace {

using namespace spec_builders;

bool cpu_has_avx512_bf16() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) >= 7) __cpuid_count(7, 1, a, b, c, d);
  return (a >> 5 & 1u) != 0;
}

class X86Bf16Dot : public testing::X86Fixture {
 protected:
  void SetUp() override {
    testing::X86Fixture::SetUp();
    if (IsSkipped()) return;
    if (!target_->device("v4").present) GTEST_SKIP() << target_->device("v4").description;
  }
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
      Expected<std::unique_ptr<StubRoutedTarget>> stub = make_in_memory_stub_target(*target_, spec, *art);
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
    Expected<std::unique_ptr<StubRoutedTarget>> stub = make_in_memory_stub_target(*target_, spec, *art);
    ASSERT_TRUE(stub.ok()) << stub.error().message();
    LaunchArgs args = inputs;
    ASSERT_TRUE((*stub)->run(spec, *art, args).ok());
    outputs.push_back(args.buffers.back());
  }
  size_t differ = 0;
  for (size_t i = 0; i < outputs[0].size(); i += 2) differ += outputs[0][i] != outputs[1][i] || outputs[0][i + 1] != outputs[1][i + 1];
  if (cpu_has_avx512_bf16()) EXPECT_GT(differ, 0u) << "the default build ran the widening path";
  else EXPECT_EQ(differ, 0u) << "without AVX512-BF16 both builds widen";
}

}  // namespace
}  // namespace tsr
