// The cuda target's device discovery goes through the runtime stub's CUDA
// driver loader, and its artifacts launch only through libtesserart: on this
// machine without a GPU, and against the CUDA driver TEST DOUBLE, where the
// oracle qualifies a cuda artifact through the stub's copying launch.
#include <gtest/gtest.h>

#include "cuda_double_fixture.h"
#include "launch/stub_launcher.h"
#include "oracle/oracle.h"
#include "cuda/cuda_devices.h"
#include "cuda/cuda_target.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

TEST(CudaDevices, NoDeviceIsNotRunWithTheStubsReason) {
  if (tsr_cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present; covered by tests/device/cuda_check.sh";
  const std::string why = tsr_cuda_unavailable_reason();
  EXPECT_TRUE(why == "no CUDA driver (libcuda.so.1 not found)" || why == "no CUDA device" ||
              why.rfind("CUDA driver present but cuInit failed: ", 0) == 0)
      << why;
  std::unique_ptr<Target> t = make_cuda_target();
  for (const std::string& arch : t->archs()) {
    const DeviceInfo info = t->device(arch);
    EXPECT_FALSE(info.present) << arch;
    EXPECT_EQ(info.description, why);
  }
}

TEST(CudaDevices, ArchRunsOnTheStubsRule) {
  EXPECT_TRUE(cuda::arch_runs_on("sm_90", 90));
  EXPECT_FALSE(cuda::arch_runs_on("sm_90", 100));
  EXPECT_FALSE(cuda::arch_runs_on("sm_80", 86));
  EXPECT_TRUE(cuda::arch_runs_on("ptx", 80));
  EXPECT_TRUE(cuda::arch_runs_on("ptx", 120));
  EXPECT_FALSE(cuda::arch_runs_on("ptx", 75));
}

TEST_F(StubCudaDouble, CompilerSeesTheStubsDevicesAndOrdinals) {
  driver_.devices({86, 90});
  std::unique_ptr<Target> t = make_cuda_target();
  const DeviceInfo sm90 = t->device("sm_90");
  EXPECT_TRUE(sm90.present);
  EXPECT_EQ(sm90.ordinal, 1);
  EXPECT_EQ(sm90.description, "CUDA driver double device 1 (sm_90, device 1, driver 13.0)");
  const DeviceInfo ptx = t->device("ptx");
  EXPECT_TRUE(ptx.present);
  EXPECT_EQ(ptx.ordinal, 0);
  const DeviceInfo sm80 = t->device("sm_80");
  EXPECT_FALSE(sm80.present);
  EXPECT_EQ(sm80.description,
            "no CUDA device for sm_80 (present: CUDA driver double device 0 (sm_86), CUDA driver double device 1 "
            "(sm_90))");
}

// The oracle's launch path for cuda: a one-kernel archive in memory, loaded
// by the stub on the device the target names, run with the copying
// tsr_kernel_launch. The double's image adds in0 and in1 like the spec.
TEST_F(StubCudaDouble, OracleQualifiesCudaThroughLibtesserart) {
  driver_.devices({80, 90});
  const KernelSpec spec = elementwise("ew_add", DType::f32, {Op::add}, rt("n"));
  Artifact art = testing::double_variant("cubin", 90, "sm_90");
  art.entry = "ew_add";
  const std::string image = "tsr-cuda-double kind=cubin arch=90 params=4 op=add entry=ew_add\n";
  art.bytes.assign(image.begin(), image.end());
  art.bytes.push_back(0);
  std::unique_ptr<Target> cuda = make_cuda_target();
  Expected<std::unique_ptr<StubLauncher>> routed = make_in_memory_stub_launcher(*cuda, spec, art);
  ASSERT_TRUE(routed.ok()) << routed.error().message();
  const OracleReport report = run_oracle(spec, **routed, art);
  EXPECT_EQ(report.verdict, Verdict::pass) << report.reason;
  EXPECT_GT(report.trials, 1);
  EXPECT_EQ((*routed)->route(), "libtesserart cubin");
  const std::vector<cudadouble_call> loads = driver_.calls("cuModuleLoadData");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].device, 1);   // the sm_90 device, not device 0
  EXPECT_EQ(driver_.count("cuLaunchKernel"), driver_.count("cuCtxSynchronize"));
  EXPECT_GT(driver_.count("cuMemcpyDtoH_v2"), 0u);
}

}  // namespace
}  // namespace tsr
