// The cuda target's generated candidates (issue 14 item 3; docs/targets-cuda.md,
// "Tunables and generated candidates"): "default" is emit() byte for byte, a
// candidate's source names itself so the compile step records its geometry,
// and every f32 matmul candidate passes the oracle in the CPU emulator
// (PASS_EMULATED: semantics, not hardware).
#include <gtest/gtest.h>

#include <chrono>

#include "oracle/input_generator.h"
#include "cuda/cuda_candidates.h"
#include "cuda/cuda_target.h"
#include "tests/unit/emulator_test_support.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

std::vector<std::string> names_of(const std::vector<GeneratedCandidate>& candidates) {
  std::vector<std::string> names;
  for (const GeneratedCandidate& c : candidates) names.push_back(c.name);
  return names;
}

std::vector<KernelSpec> shipped() {
  std::string errors;
  std::vector<KernelSpec> specs = shipped_specs(&errors);
  EXPECT_EQ(errors, "");
  return specs;
}

TEST(CudaTunables, DefaultIsEmitByteForByteForEveryShippedSpec) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  int compared = 0;
  for (const KernelSpec& spec : shipped())
    for (const std::string arch : {"sm_80", "sm_90", "ptx"}) {
      if (!cuda->unsupported_reason(spec, arch).empty()) continue;
      Expected<std::string> emitted = cuda->emit(spec, arch);
      Expected<std::string> candidate = cuda->emit_candidate(spec, arch, "default", "");
      ASSERT_TRUE(emitted.ok() && candidate.ok()) << spec.name << " " << arch;
      EXPECT_EQ(*candidate, *emitted) << spec.name << " on cuda:" << arch;
      ++compared;
    }
  EXPECT_EQ(compared, 27 * 3);
}

TEST(CudaTunables, CandidatesPerFamily) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const KernelSpec f32 = matmul("mm", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  const std::vector<std::string> tiles = {"default", "bm32.bn32.bk16.tm2.tn2", "bm128.bn128.bk8.tm8.tn8",
                                          "bm16.bn128.bk16.tm1.tn8", "bm128.bn64.bk8.tm8.tn4"};
  EXPECT_EQ(names_of(cuda->generated_candidates(f32, "sm_90")), tiles);
  const std::map<std::string, std::string> decode = {{"bm", "16"}, {"bn", "128"}, {"bk", "16"}, {"tm", "1"}, {"tn", "8"}};
  EXPECT_EQ(cuda->generated_candidates(f32, "sm_90")[3].tunables, decode);
  // Tensor-core tiles (f16, bf16) and rowwise have no tunables here.
  const KernelSpec f16 = matmul("mm16", DType::f16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::col);
  const KernelSpec rows = rowwise("rms", DType::f32, RowOp::rmsnorm, rt("rows"), st(512), true);
  EXPECT_EQ(names_of(cuda->generated_candidates(f16, "sm_80")), std::vector<std::string>{"default"});
  EXPECT_EQ(names_of(cuda->generated_candidates(rows, "sm_80")), std::vector<std::string>{"default"});
  const KernelSpec ew = elementwise("ew", DType::bf16, {Op::mul, Op::relu}, rt("n"));
  const std::vector<std::string> blocks = {"default", "block128", "block512", "block1024"};
  EXPECT_EQ(names_of(cuda->generated_candidates(ew, "sm_80")), blocks);
}

// The compile step reads a candidate's geometry from its first line; the
// default and edited sources keep the default geometry.
TEST(CudaTunables, CandidateSourceCarriesItsGeometry) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const KernelSpec spec = matmul("mm_geo", DType::f32, rt("M"), rt("N"), st(64), Layout::col, Layout::row);
  Expected<std::string> wide = cuda->emit_candidate(spec, "sm_90", "bm128.bn64.bk8.tm8.tn4", "");
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->rfind("// tesserac candidate bm128.bn64.bk8.tm8.tn4\n", 0), 0u);
  EXPECT_NE(wide->find("__shared__ float As[8][128 + 4];"), std::string::npos);
  const gpu::LaunchPlan plan = cuda::launch_plan_for_source(spec, *wide);
  EXPECT_EQ(plan.grid_text(), "cdiv(N,64),cdiv(M,128),1");
  EXPECT_EQ(plan.block_text(), "256,1,1");
  EXPECT_EQ(cuda::launch_plan_for_source(spec, *cuda->emit(spec, "sm_90")).grid_text(), "cdiv(N,64),cdiv(M,64),1");
  EXPECT_EQ(cuda::launch_plan_for_source(spec, "// tesserac candidate nonsense\n").grid_text(),
            "cdiv(N,64),cdiv(M,64),1");
  const KernelSpec ew = elementwise("ew_geo", DType::f32, {Op::exp}, rt("n"));
  Expected<std::string> big = cuda->emit_candidate(ew, "sm_80", "block1024", "");
  ASSERT_TRUE(big.ok());
  EXPECT_NE(big->find("__launch_bounds__(1024)"), std::string::npos);
  EXPECT_EQ(cuda::launch_plan_for_source(ew, *big).block_text(), "1024,1,1");
  EXPECT_EQ(cuda::launch_plan_for_source(ew, *big).grid_text(), "cdiv(n,4096),1,1");
}

TEST(CudaTunables, UnknownCandidateAndEntrySuffixAreRefused) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const KernelSpec spec = matmul("mm_named", DType::f32, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row);
  Expected<std::string> r = cuda->emit_candidate(spec, "sm_80", "bm7", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(),
            "kernel 'mm_named': unknown candidate 'bm7' for target cuda:sm_80 (known: default, "
            "bm32.bn32.bk16.tm2.tn2, bm128.bn128.bk8.tm8.tn8, bm16.bn128.bk16.tm1.tn8, bm128.bn64.bk8.tm8.tn4)");
  Expected<std::string> s = cuda->emit_candidate(spec, "sm_80", "default", "_t1");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "kernel 'mm_named': target cuda:sm_80 builds one candidate per artifact and does not rename its entry "
            "(entry suffix '_t1')");
}

class CudaEmulatorTunables : public emulator_test::EmulatorFixture {};

// Every generated candidate of the two shipped f32 matmul specs (runtime and
// static N, row and col layouts, an epilogue), emulated on every core.
TEST_F(CudaEmulatorTunables, EveryF32MatmulCandidatePassesEmulated) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const auto start = std::chrono::steady_clock::now();
  std::vector<emulator_test::EmulationJob> jobs;
  for (const KernelSpec& spec : shipped()) {
    if (spec.family != Family::matmul || spec.dtype != DType::f32) continue;
    for (const GeneratedCandidate& c : cuda->generated_candidates(spec, "sm_80")) {
      if (c.name == "default") continue;   // EveryShippedSpecPassesEmulated runs it
      Expected<std::string> source = cuda->emit_candidate(spec, "sm_80", c.name, "");
      ASSERT_TRUE(source.ok()) << source.error().message();
      jobs.push_back({spec, *source});
    }
  }
  ASSERT_EQ(jobs.size(), 2u * 4u);
  const std::vector<cuda::emu::EmulatedReport> reports = emulator_test::emulate_all(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(reports[i].evidence, "PASS_EMULATED")
        << jobs[i].spec.name << " " << jobs[i].source.substr(0, jobs[i].source.find('\n')) << ": "
        << reports[i].oracle.reason;
    EXPECT_EQ(reports[i].oracle.trials, kTrialCount) << jobs[i].spec.name;
  }
  std::fprintf(stderr, "[emulator] %zu f32 matmul candidates emulated in %.1f s\n", jobs.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// The candidate line is what gives the compile step a candidate's geometry:
// the 32 x 32 tile under the default's 64 x 64 grid leaves most of C unwritten.
TEST_F(CudaEmulatorTunables, GeometryComesFromTheCandidateLine) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const KernelSpec spec = matmul("mm_line", DType::f32, st(70), st(70), st(20), Layout::row, Layout::row);
  Expected<std::string> small = cuda->emit_candidate(spec, "sm_80", "bm32.bn32.bk16.tm2.tn2", "");
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(emulator_test::emulate(spec, *small).evidence, "PASS_EMULATED");
  const std::string unnamed = small->substr(small->find('\n') + 1);
  EXPECT_EQ(emulator_test::emulate(spec, unnamed).evidence, "FAIL");
}

}  // namespace
}  // namespace tsr
