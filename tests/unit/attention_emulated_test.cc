// The shared CUDA/HIP attention kernel (backends/gpu/gpu_emit_attention.cc)
// on every attention variant of attention_cases.h, in the CPU emulator with
// its race and bounds checks: CUDA (32-lane warps), HIP wave64 and wave32.
// The shipped attention specs are covered by the EveryShippedSpec tests.
#include <gtest/gtest.h>

#include "cuda/cuda_emit_kernels.h"
#include "hip/hip_emit_kernels.h"
#include "hip/hip_emulated_target.h"
#include "oracle/input_generator.h"
#include "tests/unit/attention_cases.h"
#include "tests/unit/emulator_test_support.h"

namespace tsr {
namespace {

using namespace emulator_test;

class AttentionEmulated : public EmulatorFixture {
 protected:
  std::unique_ptr<Target> hip_ = hip::make_emulated_hip_target();
};

TEST_F(AttentionEmulated, EveryVariantPassesOnCudaAndHipWave64AndWave32) {
  std::vector<EmulationJob> cuda_jobs, hip_jobs;
  for (const KernelSpec& spec : attention_cases::attention_variants()) {
    cuda_jobs.push_back({spec, cuda::emit_kernel(spec).source});
    for (const char* gfx : {"gfx90a", "gfx1100"})
      hip_jobs.push_back({spec, hip::emit_kernel(spec, *hip::find_hip_arch(gfx)).source, gfx});
  }
  const std::vector<cuda::emu::EmulatedReport> cuda_reports = emulate_all(cuda_jobs);
  const std::vector<cuda::emu::EmulatedReport> hip_reports = emulate_all(hip_jobs, hip_.get());
  ASSERT_EQ(cuda_reports.size(), 6u);
  ASSERT_EQ(hip_reports.size(), 12u);
  for (size_t i = 0; i < cuda_jobs.size(); ++i) {
    EXPECT_EQ(cuda_reports[i].evidence, "PASS_EMULATED") << cuda_jobs[i].spec.name << ": " << cuda_reports[i].oracle.reason;
    EXPECT_EQ(cuda_reports[i].oracle.trials, kTrialCount) << cuda_jobs[i].spec.name;
  }
  for (size_t i = 0; i < hip_jobs.size(); ++i)
    EXPECT_EQ(hip_reports[i].evidence, "PASS_EMULATED")
        << hip_jobs[i].spec.name << " on " << hip_jobs[i].arch << ": " << hip_reports[i].oracle.reason;
}

}  // namespace
}  // namespace tsr
