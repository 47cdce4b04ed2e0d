// The cuda runner on a machine without a usable GPU: the device is reported
// absent with the reason, and run() refuses instead of crashing. On a machine
// with a CUDA device these checks skip (tests/device/cuda_check.sh covers it).
#include <gtest/gtest.h>

#include "targets/cuda/cuda_driver.h"
#include "targets/cuda/cuda_target.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

TEST(CudaRunner, NoDeviceIsNotRunWithTheReason) {
  const cuda::CudaDriver& driver = cuda::cuda_driver();
  if (driver.loaded) GTEST_SKIP() << "a CUDA device is present; covered by tests/device/cuda_check.sh";
  std::unique_ptr<Target> t = make_cuda_target();
  for (const std::string& arch : t->archs()) {
    const DeviceInfo info = t->device(arch);
    EXPECT_FALSE(info.present) << arch;
    EXPECT_EQ(info.description, driver.why_unavailable);
  }
  EXPECT_TRUE(driver.why_unavailable == "no CUDA driver (libcuda.so.1 not found)" ||
              driver.why_unavailable == "no CUDA device" ||
              driver.why_unavailable.rfind("CUDA driver present but cuInit failed: ", 0) == 0)
      << driver.why_unavailable;

  const KernelSpec spec = elementwise("run_add", DType::f32, {Op::add}, st(4));
  Artifact art;
  art.target = {"cuda", "sm_90"};
  art.kind = "cubin";
  art.entry = spec.name;
  art.metadata = {{"cuda.grid", "1,1,1"}, {"cuda.block", "256,1,1"}, {"cuda.shared_bytes", "0"}};
  LaunchArgs args;
  args.buffers.assign(3, std::vector<uint8_t>(16, 0));
  Status s = t->run(spec, art, args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::toolchain);
  EXPECT_EQ(s.error().message(), "target unavailable: " + driver.why_unavailable);
}

}  // namespace
}  // namespace tsr
