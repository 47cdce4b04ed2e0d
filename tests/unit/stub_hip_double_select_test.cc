// HIP selection and per-device loading, proven against the HIP runtime TEST
// DOUBLE (no AMD GPU): no runtime or no device is TSR_ERROR_NO_DEVICE with
// the reason; the code object whose target ID the device's gcnArchName
// satisfies (features "any" unless stated); one module load per (kernel,
// device), once even when 8 threads race the first launch; the caller's
// current device is given back; the runtime is never loaded for a kernel
// without hip variants.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "hip_double_fixture.h"

namespace tsr {
namespace {

using testing::hip_double_variant;
using testing::vadd_with_only;
using testing::OpenedArchive;

// "code-object gfx90a" / the status name, for one device.
std::string select_on(tsr_archive* a, int device) {
  tsr_select_options o{"hip", 0, nullptr, device};
  tsr_selection sel{};
  const tsr_status s = tsr_kernel_select(a, 0, &o, &sel);
  if (s != TSR_OK) return tsr_status_string(s);
  const char* id = sel.arch;
  tsr_variant_metadata_find(a, 0, sel.variant, "hip.target_id", &id);
  return std::string(sel.route) + " " + id;
}

TEST(HipTargetId, FeaturesAreAnyUnlessStated) {
  // Same processor; a feature the code omits matches either setting.
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:sramecc+:xnack-", "gfx90a"), 0);
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a", "gfx90a"), 0);
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:sramecc+:xnack-", "gfx90a:xnack-"), 1);
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-"), 2);
  // A stated feature must be the device's, with its sign.
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:sramecc+:xnack-", "gfx90a:xnack+"), -1);
  EXPECT_EQ(tsr_hip_target_id_match("gfx1100", "gfx1100:xnack+"), -1);
  // Processors compare whole: gfx90a is not gfx90, gfx940 not gfx942.
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:xnack-", "gfx90"), -1);
  EXPECT_EQ(tsr_hip_target_id_match("gfx942:sramecc+:xnack-", "gfx940"), -1);
  EXPECT_EQ(tsr_hip_target_id_match("", "gfx90a"), -1);
  // Malformed code features never match.
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:xnack-", "gfx90a:xnack"), -1);
  EXPECT_EQ(tsr_hip_target_id_match("gfx90a:xnack-", "gfx90a:"), -1);
}

TEST_F(StubHipDouble, NoDeviceIsNoDeviceWithTheReason) {
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
  EXPECT_EQ(select_on(a.archive, 0), "no device");
  EXPECT_EQ(tsr_hip_device_count(), 0);
  // ROCm 5.2 without a GPU: hipInit fails, hipGetDeviceCount reports none.
  EXPECT_STREQ(tsr_hip_unavailable_reason(),
               "no AMD GPU: hipGetDeviceCount reports 0 (hipErrorNoDevice (100))");
  tsr_hip_use_runtime_for_tests("/nonexistent/libamdhip64.so");
  EXPECT_EQ(select_on(a.archive, 0), "no device");
  EXPECT_STREQ(tsr_hip_unavailable_reason(), "no AMD GPU: libamdhip64 not found (/nonexistent/libamdhip64.so)");
  tsr_hip_device_desc d;
  EXPECT_EQ(tsr_hip_describe(0, &d), TSR_ERROR_NO_DEVICE);
}

TEST_F(StubHipDouble, DescribeReadsNameAndGcnArchName) {
  runtime_.devices({"gfx90a:sramecc+:xnack-", "gfx1100"});
  EXPECT_EQ(tsr_hip_device_count(), 2);
  EXPECT_STREQ(tsr_hip_unavailable_reason(), "");
  tsr_hip_device_desc d;
  ASSERT_EQ(tsr_hip_describe(1, &d), TSR_OK);
  EXPECT_STREQ(d.name, "HIP runtime double device 1");
  EXPECT_STREQ(d.arch, "gfx1100");
  EXPECT_EQ(d.driver_version, 50221153);
  ASSERT_EQ(tsr_hip_describe(0, &d), TSR_OK);
  EXPECT_STREQ(d.arch, "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(tsr_hip_describe(2, &d), TSR_ERROR_NO_DEVICE);
}

TEST_F(StubHipDouble, CodeObjectPerTargetId) {
  runtime_.devices({"gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack+", "gfx940:sramecc+:xnack-", "gfx1030",
                    "gfx1100", "gfx942:sramecc+:xnack-", "gfx908:sramecc+:xnack-"});
  // Built with features "any" (what tesserac ships), plus one built for xnack+ explicitly.
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a"), hip_double_variant("gfx940"), hip_double_variant("gfx1030"),
                            hip_double_variant("gfx1100"), hip_double_variant("gfx90a_xnack", "gfx90a:xnack+")}));
  const std::vector<std::string> expected = {"code-object gfx90a", "code-object gfx90a:xnack+", "code-object gfx940",
                                             "code-object gfx1030", "code-object gfx1100",
                                             "no variant for this machine", "no variant for this machine"};
  for (int d = 0; d < 7; ++d) EXPECT_EQ(select_on(a.archive, d), expected[d]) << d;
  EXPECT_EQ(select_on(a.archive, 7), "no device");
  // A variant built only for xnack+ does not run with xnack off.
  OpenedArchive only_plus(vadd_with_only({hip_double_variant("gfx90a_xnack", "gfx90a:xnack+")}));
  EXPECT_EQ(select_on(only_plus.archive, 0), "no variant for this machine");
  EXPECT_EQ(select_on(only_plus.archive, 1), "code-object gfx90a:xnack+");
  // tsr_select_options.arch selects exactly that arch (the oracle's qualification).
  tsr_select_options o{"hip", 0, "gfx90a_xnack", 0};
  tsr_selection sel{};
  EXPECT_EQ(tsr_kernel_select(a.archive, 0, &o, &sel), TSR_ERROR_NO_VARIANT);
  o.device = 1;
  ASSERT_EQ(tsr_kernel_select(a.archive, 0, &o, &sel), TSR_OK);
  EXPECT_STREQ(sel.arch, "gfx90a_xnack");
}

TEST_F(StubHipDouble, OneModuleLoadPerDeviceWithItsOwnVariant) {
  runtime_.devices({"gfx1100", "gfx90a:sramecc+:xnack-"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a"), hip_double_variant("gfx1100")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(runtime_.count("hipModuleLoadData"), 1u);   // loading loads on the chosen device
  const int64_t n = 1024;
  tsr_device_buffer b[3] = {{4096, 4096, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {8192, 4096, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {12288, 4096, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  for (int i = 0; i < 5; ++i)
    for (int d : {1, 0})
      ASSERT_EQ(tsr_kernel_launch_device(k, d, nullptr, b, 3, &n, 1), TSR_OK) << tsr_kernel_last_message(k);
  const std::vector<hipdouble_call> loads = runtime_.calls("hipModuleLoadData");
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].device, 0);
  EXPECT_NE(std::string(loads[0].text).find("target=gfx1100 "), std::string::npos) << loads[0].text;
  EXPECT_EQ(loads[1].device, 1);
  EXPECT_NE(std::string(loads[1].text).find("target=gfx90a "), std::string::npos) << loads[1].text;
  const std::vector<hipdouble_call> functions = runtime_.calls("hipModuleGetFunction");
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_STREQ(functions[0].text, "vadd");
  // Each device launches its own function with that device current.
  for (const hipdouble_call& c : runtime_.calls("hipModuleLaunchKernel"))
    EXPECT_EQ(c.args[0], functions[c.device == 0 ? 0 : 1].args[0]);
  EXPECT_EQ(runtime_.count("hipModuleLaunchKernel"), 10u);
  // Unload releases each device's module, each with its device current.
  tsr_kernel_unload(k);
  kernels_.clear();
  const std::vector<hipdouble_call> unloads = runtime_.calls("hipModuleUnload");
  ASSERT_EQ(unloads.size(), 2u);
  EXPECT_EQ(unloads[0].result, 0);
  EXPECT_EQ(unloads[1].result, 0);
  EXPECT_EQ(unloads[1].device, 1);
}

TEST_F(StubHipDouble, ADeviceWithoutAFittingCodeObjectLoadsNothing) {
  runtime_.devices({"gfx90a:sramecc+:xnack-", "gfx1030"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  const int64_t n = 8;
  tsr_device_buffer b[3] = {{256, 32, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {512, 32, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {768, 32, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  EXPECT_EQ(tsr_kernel_launch_device(k, 1, nullptr, b, 3, &n, 1), TSR_ERROR_NO_VARIANT);
  EXPECT_STREQ(tsr_kernel_last_message(k), "vadd on HIP device 1 (gfx1030): no variant for this machine");
  EXPECT_EQ(tsr_kernel_launch_device(k, 5, nullptr, b, 3, &n, 1), TSR_ERROR_NO_DEVICE);
  EXPECT_STREQ(tsr_kernel_last_message(k), "vadd: no HIP device 5 (2 present)");
  EXPECT_EQ(runtime_.count("hipModuleLoadData"), 1u);
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, b, 3, &n, 1), TSR_OK) << tsr_kernel_last_message(k);
}

TEST_F(StubHipDouble, TheCallersCurrentDeviceIsGivenBack) {
  runtime_.devices({"gfx90a", "gfx90a"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
  tsr_kernel* k = load(a);   // on device 0, already current: no hipSetDevice
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(runtime_.count("hipSetDevice"), 0u);
  const int64_t n = 64;
  tsr_device_buffer b[3] = {{256, 256, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {512, 256, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {768, 256, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  ASSERT_EQ(tsr_kernel_launch_device(k, 1, nullptr, b, 3, &n, 1), TSR_OK) << tsr_kernel_last_message(k);
  // Device 1 made current for the load and the launch, device 0 put back after each.
  std::vector<unsigned long long> set;
  for (const hipdouble_call& c : runtime_.calls("hipSetDevice")) set.push_back(c.args[0]);
  EXPECT_EQ(set, (std::vector<unsigned long long>{1, 0, 1, 0}));
  const hipdouble_call launch = runtime_.calls("hipModuleLaunchKernel").back();
  EXPECT_EQ(launch.device, 1);
  // Device 0 is current again: a launch there sets nothing.
  ASSERT_EQ(tsr_kernel_launch_device(k, 0, nullptr, b, 3, &n, 1), TSR_OK) << tsr_kernel_last_message(k);
  EXPECT_EQ(runtime_.count("hipSetDevice"), 4u);
  EXPECT_EQ(runtime_.calls("hipModuleLaunchKernel").back().device, 0);
}

TEST_F(StubHipDouble, RacingFirstLaunchesLoadOnce) {
  runtime_.devices({"gfx90a", "gfx90a"});
  runtime_.load_delay(20000);   // 20 ms inside hipModuleLoadData: the threads overlap there
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  const int64_t n = 64;
  tsr_device_buffer b[3] = {{256, 256, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {512, 256, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {768, 256, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (tsr_kernel_launch_device(k, 1, nullptr, b, 3, &n, 1) != TSR_OK) ++failures;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(runtime_.count("hipModuleLoadData"), 2u);   // device 0 at load, device 1 once
  EXPECT_EQ(runtime_.count("hipModuleLaunchKernel"), 160u);
  for (const hipdouble_call& c : runtime_.calls("hipModuleLaunchKernel")) EXPECT_EQ(c.device, 1);
}

TEST_F(StubHipDouble, RuntimeUntouchedWithoutHipVariants) {
  runtime_.devices({"gfx90a"});
  OpenedArchive a(vadd_with_only({testing::x86_artifact("vadd", "v1", testing::vadd_object(1))}));
  tsr_selection sel{};
  ASSERT_EQ(tsr_kernel_select(a.archive, 0, nullptr, &sel), TSR_OK);
  EXPECT_STREQ(sel.target_kind, "x86");
  EXPECT_TRUE(runtime_.calls().empty());
}

}  // namespace
}  // namespace tsr
