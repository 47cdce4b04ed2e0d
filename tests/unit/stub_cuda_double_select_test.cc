// CUDA selection and per-device loading, proven against the CUDA driver
// TEST DOUBLE (no GPU): cubin for the exact capability, else the PTX whose
// target the device meets; one module load per (kernel, device), the right
// variant on each device, once even when 8 threads race the first launch;
// the driver is never loaded for a kernel without cuda variants.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cuda_double_fixture.h"

namespace tsr {
namespace {

using testing::OpenedArchive;

// "cubin sm_90" / "ptx-jit compute_80" / the status name, for one device.
std::string select_on(tsr_archive* a, int device) {
  tsr_select_options o{"cuda", 0, nullptr, device};
  tsr_selection sel{};
  const tsr_status s = tsr_kernel_select(a, 0, &o, &sel);
  if (s != TSR_OK) return tsr_status_string(s);
  const char* ptx_arch = "";
  tsr_variant_metadata_find(a, 0, sel.variant, "cuda.ptx_arch", &ptx_arch);
  return std::string(sel.route) + " " + (std::string(sel.route) == "cubin" ? sel.arch : ptx_arch);
}

TEST_F(StubCudaDouble, CubinOrPtxPerComputeCapability) {
  const std::vector<int> ccs = {75, 80, 86, 89, 90, 100, 120};
  driver_.devices(ccs);
  // Cubins for sm_80, sm_86, sm_90, sm_100 and PTX for compute_80.
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(80), testing::double_cubin(86), testing::double_cubin(90),
                                      testing::double_cubin(100), testing::double_ptx(80)}));
  const std::vector<std::string> expected = {"no variant for this machine", "cubin sm_80", "cubin sm_86",
                                             "ptx-jit compute_80", "cubin sm_90", "cubin sm_100",
                                             "ptx-jit compute_80"};
  for (size_t d = 0; d < ccs.size(); ++d) EXPECT_EQ(select_on(a.archive, static_cast<int>(d)), expected[d]) << ccs[d];

  // What gets loaded is what was selected: the double refuses a cubin of
  // another capability and PTX newer than the device.
  tsr_kernel* k = load(a, 1);
  ASSERT_NE(k, nullptr);
  const int64_t n = 8;
  tsr_device_buffer b[3] = {{256, 32, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {512, 32, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {768, 32, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  for (int d = 1; d < static_cast<int>(ccs.size()); ++d)
    ASSERT_EQ(tsr_kernel_launch_device(k, d, nullptr, b, 3, &n, 1), TSR_OK) << tsr_kernel_last_message(k);
  const std::vector<cudadouble_call> loads = driver_.calls("cuModuleLoadData");
  ASSERT_EQ(loads.size(), 6u);
  const std::vector<std::string> images = {"cubin arch=80", "cubin arch=86", "ptx arch=80",
                                           "cubin arch=90", "cubin arch=100", "ptx arch=80"};
  for (size_t i = 0; i < loads.size(); ++i) {
    EXPECT_EQ(loads[i].result, 0) << i;
    EXPECT_EQ(loads[i].device, static_cast<int>(i) + 1);
    EXPECT_NE(std::string(loads[i].text).find("kind=" + images[i]), std::string::npos) << loads[i].text;
  }
  // sm_75 has no variant: the launch says so and loads nothing.
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, b, 3, &n, 1), TSR_ERROR_NO_VARIANT);
  EXPECT_STREQ(tsr_kernel_last_message(k), "vadd on CUDA device 0 (sm_75): no variant for this machine");
  EXPECT_EQ(driver_.count("cuModuleLoadData"), 6u);
}

TEST_F(StubCudaDouble, PtxOnlyWhereTheDeviceMeetsItsTarget) {
  driver_.devices({75, 80, 86, 89, 90, 100, 120});
  // PTX for compute_90 and an sm_80 cubin: sm_86 and sm_89 get nothing.
  OpenedArchive only90(testing::vadd_with_only({testing::double_cubin(80), testing::double_ptx(90)}));
  const std::vector<std::string> expected90 = {"no variant for this machine", "cubin sm_80",
                                               "no variant for this machine", "no variant for this machine",
                                               "ptx-jit compute_90", "ptx-jit compute_90", "ptx-jit compute_90"};
  for (int d = 0; d < 7; ++d) EXPECT_EQ(select_on(only90.archive, d), expected90[d]) << d;
  // Two PTX targets: the highest one the device meets.
  OpenedArchive both(testing::vadd_with_only({testing::double_ptx(80, "ptx"), testing::double_ptx(90, "ptx90")}));
  const std::vector<std::string> expected_both = {"no variant for this machine", "ptx-jit compute_80",
                                                  "ptx-jit compute_80", "ptx-jit compute_80", "ptx-jit compute_90",
                                                  "ptx-jit compute_90", "ptx-jit compute_90"};
  for (int d = 0; d < 7; ++d) EXPECT_EQ(select_on(both.archive, d), expected_both[d]) << d;
  // Architecture-specific PTX (compute_90a) runs on exactly that capability.
  Artifact specific = testing::double_ptx(90, "ptx90a");
  specific.metadata["cuda.ptx_arch"] = "compute_90a";
  OpenedArchive exact(testing::vadd_with_only({specific}));
  for (int d = 0; d < 7; ++d)
    EXPECT_EQ(select_on(exact.archive, d), d == 4 ? "ptx-jit compute_90a" : "no variant for this machine") << d;
  // A PTX variant without cuda.ptx_arch has no known target: never selected.
  Artifact unknown = testing::double_ptx(80);
  unknown.metadata.erase("cuda.ptx_arch");
  OpenedArchive untargeted(testing::vadd_with_only({unknown}));
  EXPECT_EQ(select_on(untargeted.archive, 6), "no variant for this machine");
  // A device ordinal past the last device.
  EXPECT_EQ(select_on(both.archive, 7), "no device");
}

TEST_F(StubCudaDouble, OneModuleLoadPerDeviceWithItsOwnVariant) {
  driver_.devices({86, 90});
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(86), testing::double_cubin(90), testing::double_ptx(80)}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(driver_.count("cuModuleLoadData"), 1u);   // loading loads on the chosen device
  const int64_t n = 1024;
  tsr_device_buffer b[3] = {{4096, 4096, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {8192, 4096, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {12288, 4096, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  for (int i = 0; i < 5; ++i)
    for (int d : {1, 0})
      ASSERT_EQ(tsr_kernel_launch_device(k, d, nullptr, b, 3, &n, 1), TSR_OK) << tsr_kernel_last_message(k);
  const std::vector<cudadouble_call> loads = driver_.calls("cuModuleLoadData");
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].device, 0);
  EXPECT_NE(std::string(loads[0].text).find("kind=cubin arch=86"), std::string::npos) << loads[0].text;
  EXPECT_EQ(loads[1].device, 1);
  EXPECT_NE(std::string(loads[1].text).find("kind=cubin arch=90"), std::string::npos) << loads[1].text;
  EXPECT_EQ(driver_.count("cuModuleGetFunction"), 2u);
  // Each device launches its own function, inside its own context.
  for (const cudadouble_call& c : driver_.calls("cuLaunchKernel"))
    EXPECT_EQ(c.args[0], (c.device == 0 ? driver_.calls("cuModuleGetFunction")[0] : driver_.calls("cuModuleGetFunction")[1]).args[0]);
  // A primary context per device, retained once.
  const std::vector<cudadouble_call> retains = driver_.calls("cuDevicePrimaryCtxRetain");
  ASSERT_EQ(retains.size(), 2u);
  EXPECT_EQ(retains[0].args[1], 0u);
  EXPECT_EQ(retains[1].args[1], 1u);
  // Unload releases each device's module.
  tsr_kernel_unload(k);
  kernels_.clear();
  const std::vector<cudadouble_call> unloads = driver_.calls("cuModuleUnload");
  ASSERT_EQ(unloads.size(), 2u);
  EXPECT_EQ(unloads[0].result, 0);
  EXPECT_EQ(unloads[1].result, 0);
  EXPECT_EQ(driver_.context_depth(), 0);
}

TEST_F(StubCudaDouble, RacingFirstLaunchesLoadOnce) {
  driver_.devices({90, 90});
  driver_.load_delay(20000);   // 20 ms inside cuModuleLoadData: the threads overlap there
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  const int64_t n = 64;
  tsr_device_buffer b[3] = {{256, 256, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {512, 256, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {768, 256, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  std::atomic<int> go{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 4; ++i)
        if (tsr_kernel_launch_device(k, 1, nullptr, b, 3, &n, 1) != TSR_OK) failures++;
    });
  go = 1;
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  const std::vector<cudadouble_call> loads = driver_.calls("cuModuleLoadData");
  ASSERT_EQ(loads.size(), 2u);   // device 0 at load, device 1 once
  EXPECT_EQ(loads[1].device, 1);
  EXPECT_EQ(driver_.count("cuLaunchKernel"), 32u);
  EXPECT_EQ(driver_.count("cuDevicePrimaryCtxRetain"), 2u);
}

// In a child, so the driver's state is fresh: an archive without cuda
// variants never dlopens the driver; one with them does, once.
TEST(StubCudaDriverLoad, OnlyKernelsWithCudaVariantsLoadTheDriver) {
  const int rc = testing::run_in_child([] {
    if (dlopen(TSR_CUDA_DRIVER_DOUBLE, RTLD_NOW | RTLD_NOLOAD)) return 10;   // cannot tell: already loaded
    tsr_cuda_use_driver_for_tests(TSR_CUDA_DRIVER_DOUBLE);
    ArchiveContents x86 = testing::sample_contents();
    x86.kernels.resize(1);
    x86.kernels[0].variants.resize(3);   // vadd's x86 tiers only
    OpenedArchive a(x86);
    tsr_kernel* k = nullptr;
    tsr_selection sel{};
    if (tsr_kernel_select(a.archive, 0, nullptr, &sel) != TSR_OK) return 11;
    if (tsr_kernel_load(a.archive, "vadd", nullptr, &k) != TSR_OK) return 12;
    tsr_kernel_unload(k);
    if (dlopen(TSR_CUDA_DRIVER_DOUBLE, RTLD_NOW | RTLD_NOLOAD)) return 2;   // the x86 path loaded the driver
    OpenedArchive both(testing::sample_contents());   // vadd has cuda variants: the double has no device
    size_t vadd = 0;
    if (tsr_archive_find_kernel(both.archive, "vadd", &vadd) != TSR_OK) return 14;
    if (tsr_kernel_select(both.archive, vadd, nullptr, &sel) != TSR_OK || std::string(sel.target_kind) != "x86") return 13;
    void* loaded = dlopen(TSR_CUDA_DRIVER_DOUBLE, RTLD_NOW | RTLD_NOLOAD);
    if (!loaded) return 3;   // the cuda variants did not reach the driver
    auto count = reinterpret_cast<cudadouble_call_count_fn>(dlsym(loaded, "cudadouble_call_count"));
    auto at = reinterpret_cast<cudadouble_call_at_fn>(dlsym(loaded, "cudadouble_call_at"));
    cudadouble_call first{};
    if (!count || !at || !at(0, &first) || std::string(first.function) != "cuInit") return 4;
    if (tsr_cuda_device_count() != 0 || std::string(tsr_cuda_unavailable_reason()) != "no CUDA device") return 5;
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace
}  // namespace tsr
