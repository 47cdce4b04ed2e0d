// The HIP backend's launches, proven against the HIP runtime TEST DOUBLE (no
// AMD GPU): tsr_kernel_launch_device hands the caller's device addresses
// and stream to hipModuleLaunchKernel unchanged, one 8-byte kernarg per
// binding in ABI order, and never copies or synchronizes; tsr_kernel_launch
// copies in, launches, synchronizes and copies out; every runtime error maps
// to a status with the runtime's name for it; concurrent launches all land.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "hip_double_fixture.h"

namespace tsr {
namespace {

using testing::hip_double_variant;
using testing::vadd_with_only;
using testing::OpenedArchive;

constexpr const char* kNoCopyOrSync[] = {"hipMalloc", "hipMemcpyHtoD", "hipMemcpyDtoH", "hipDeviceSynchronize",
                                         "hipStreamSynchronize", "hipFree"};

struct DeviceArgs {
  int64_t n;
  tsr_device_buffer buffers[3];
  explicit DeviceArgs(int64_t count) : n(count) {
    const size_t bytes = static_cast<size_t>(count) * 4;
    buffers[0] = {0x7f0000001000ull, bytes, TSR_DTYPE_F32, TSR_ROLE_IN};
    buffers[1] = {0x7f0000201000ull, bytes, TSR_DTYPE_F32, TSR_ROLE_IN};
    buffers[2] = {0x7f0000401000ull, bytes, TSR_DTYPE_F32, TSR_ROLE_OUT};
  }
};

TEST_F(StubHipDouble, KernargsAndStreamReachTheLaunchUnchanged) {
  runtime_.devices({"gfx90a:sramecc+:xnack-"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  DeviceArgs args(1000);
  void* stream = reinterpret_cast<void*>(0x5ca1ab1e0ull);
  ASSERT_EQ(tsr_kernel_launch_device(k, 0, stream, args.buffers, 3, &args.n, 1), TSR_OK)
      << tsr_kernel_last_message(k);
  const std::vector<hipdouble_call> launches = runtime_.calls("hipModuleLaunchKernel");
  ASSERT_EQ(launches.size(), 1u);
  const hipdouble_call& c = launches[0];
  EXPECT_EQ(c.result, 0);
  ASSERT_EQ(c.arg_count, 13);   // function, grid, block, shared, stream, 4 kernarg words
  EXPECT_EQ(c.args[1], 4u);     // cdiv(1000, 256)
  EXPECT_EQ(c.args[2], 1u);
  EXPECT_EQ(c.args[3], 1u);
  EXPECT_EQ(c.args[4], 256u);
  EXPECT_EQ(c.args[7], 0u);     // shared bytes
  EXPECT_EQ(c.args[8], 0x5ca1ab1e0ull);
  // The kernarg segment: in0, in1, out, n at offsets 0, 8, 16, 24.
  EXPECT_EQ(c.args[9], 0x7f0000001000ull);
  EXPECT_EQ(c.args[10], 0x7f0000201000ull);
  EXPECT_EQ(c.args[11], 0x7f0000401000ull);
  EXPECT_EQ(c.args[12], 1000u);
  ASSERT_EQ(tsr_kernel_launch_device(k, 0, nullptr, args.buffers, 3, &args.n, 1), TSR_OK);
  EXPECT_EQ(runtime_.calls("hipModuleLaunchKernel").back().args[8], 0u);   // the null stream stays null
  for (const char* fn : kNoCopyOrSync) EXPECT_EQ(runtime_.count(fn), 0u) << fn;
}

TEST_F(StubHipDouble, HostLaunchCopiesLaunchesSynchronizesAndCopiesBack) {
  runtime_.devices({"gfx1100"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx1100")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  const int64_t n = 1000;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.5f * static_cast<float>(i);
  }
  tsr_buffer_arg b[3] = {{x.data(), n * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                         {y.data(), n * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                         {out.data(), n * 4, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  tsr_selection sel{};
  ASSERT_EQ(tsr_kernel_launch(k, b, 3, &n, 1, &sel), TSR_OK) << tsr_kernel_last_message(k);
  EXPECT_STREQ(sel.route, "code-object");
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 1.5f * static_cast<float>(i)) << i;
  std::vector<std::string> order;
  for (const hipdouble_call& c : runtime_.calls())
    if (std::strncmp(c.function, "hipMem", 6) == 0 || !std::strcmp(c.function, "hipMalloc") ||
        !std::strcmp(c.function, "hipFree") || !std::strcmp(c.function, "hipModuleLaunchKernel") ||
        !std::strcmp(c.function, "hipDeviceSynchronize"))
      order.push_back(c.function);
  const std::vector<std::string> expected = {"hipMalloc", "hipMemcpyHtoD", "hipMalloc", "hipMemcpyHtoD",
                                             "hipMalloc", "hipModuleLaunchKernel", "hipDeviceSynchronize",
                                             "hipMemcpyDtoH", "hipFree", "hipFree", "hipFree"};
  EXPECT_EQ(order, expected);
  const std::vector<hipdouble_call> allocs = runtime_.calls("hipMalloc");
  const hipdouble_call launch = runtime_.calls("hipModuleLaunchKernel")[0];
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(allocs[i].args[1], 4000u);
    EXPECT_EQ(launch.args[9 + i], allocs[i].args[0]);
  }
  EXPECT_EQ(launch.args[8], 0u);   // the null stream
}

TEST_F(StubHipDouble, EmptyProblemsAndOversizedGridsLaunchNothing) {
  runtime_.devices({"gfx90a"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a", "", "cdiv(n,1),1,1")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  DeviceArgs empty(0);
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, empty.buffers, 3, &empty.n, 1), TSR_OK);
  DeviceArgs huge(int64_t{1} << 32);
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, huge.buffers, 3, &huge.n, 1), TSR_ERROR_INVALID_SCALAR);
  EXPECT_STREQ(tsr_kernel_last_message(k),
               "vadd: hip.grid 'cdiv(n,1),1,1' exceeds the grid limit (x 2^31-1, y and z 65535) for these sizes");
  EXPECT_EQ(runtime_.count("hipModuleLaunchKernel"), 0u);
  // Metadata the evaluator cannot read is a corrupt variant, found at load.
  Artifact bad = hip_double_variant("gfx90a");
  bad.metadata["hip.block"] = "256,1";
  OpenedArchive b(vadd_with_only({bad}));
  tsr_kernel* kb = load(b);
  ASSERT_NE(kb, nullptr);
  DeviceArgs args(10);
  EXPECT_EQ(tsr_kernel_launch_device(kb, 0, nullptr, args.buffers, 3, &args.n, 1), TSR_ERROR_CORRUPT);
  EXPECT_STREQ(tsr_kernel_last_message(kb),
               "hip variant has no valid hip.block / hip.grid metadata ('256,1' does not have three components)");
}

struct Injected {
  const char* function;
  int result;
  tsr_status status;
  const char* message;
};

TEST_F(StubHipDouble, LoadErrorsMapToTheirStatus) {
  const Injected cases[] = {
      {"hipModuleLoadData", 209, TSR_ERROR_LOAD_FAILED,
       "hipModuleLoadData failed on HIP device 1: hipErrorNoBinaryForGpu (209)"},
      {"hipModuleLoadData", 200, TSR_ERROR_LOAD_FAILED,
       "hipModuleLoadData failed on HIP device 1: hipErrorInvalidImage (200)"},
      {"hipModuleLoadData", 218, TSR_ERROR_LOAD_FAILED,
       "hipModuleLoadData failed on HIP device 1: hipErrorInvalidKernelFile (218)"},
      {"hipModuleLoadData", 2, TSR_ERROR_OUT_OF_MEMORY,
       "hipModuleLoadData failed on HIP device 1: hipErrorOutOfMemory (2)"},
      {"hipModuleLoadData", 4242, TSR_ERROR_LOAD_FAILED,
       "hipModuleLoadData failed on HIP device 1: hipErrorUnknown (4242)"},
      {"hipModuleGetFunction", 500, TSR_ERROR_LOAD_FAILED,
       "hipModuleGetFunction failed on HIP device 1: hipErrorNotFound (500)"},
      {"hipGetDevice", 101, TSR_ERROR_NO_DEVICE, "hipGetDevice failed on HIP device 1: hipErrorInvalidDevice (101)"},
      {"hipSetDevice", 101, TSR_ERROR_NO_DEVICE, "hipSetDevice failed on HIP device 1: hipErrorInvalidDevice (101)"},
  };
  for (const Injected& c : cases) {
    runtime_.restart();   // fresh per case
    runtime_.devices({"gfx90a", "gfx90a"});   // loads on device 1: device 0 is current
    runtime_.fail(c.function, c.result);
    OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
    tsr_select_options hip{"hip", 0, nullptr, 1};
    tsr_kernel* k = nullptr;
    EXPECT_EQ(tsr_kernel_load(a.archive, "vadd", &hip, &k), c.status) << c.function << " " << c.result;
    EXPECT_EQ(k, nullptr);
    EXPECT_STREQ(tsr_archive_last_message(a.archive), c.message);
    // A module loaded before the failure is not leaked.
    size_t loaded = 0;
    for (const hipdouble_call& call : runtime_.calls("hipModuleLoadData")) loaded += call.result == 0;
    EXPECT_EQ(runtime_.count("hipModuleUnload"), loaded) << c.function;
  }
}

TEST_F(StubHipDouble, RuntimeInitErrorsMeanNoDevice) {
  runtime_.devices({"gfx90a"});
  runtime_.fail("hipInit", 35);
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
  tsr_select_options hip{"hip", 0, nullptr, 0};
  tsr_selection sel{};
  EXPECT_EQ(tsr_kernel_select(a.archive, 0, &hip, &sel), TSR_ERROR_NO_DEVICE);
  EXPECT_STREQ(tsr_hip_unavailable_reason(),
               "no AMD GPU: hipInit failed with 1 device(s) present: hipErrorInsufficientDriver (35)");
  // A device whose properties cannot be read has no gcnArchName: nothing selects it.
  runtime_.restart();
  runtime_.devices({"gfx90a", "gfx90a"});
  runtime_.fail("hipGetDeviceProperties", 101, 0, 1);
  EXPECT_EQ(tsr_hip_device_count(), 2);
  hip.device = 0;
  EXPECT_EQ(tsr_kernel_select(a.archive, 0, &hip, &sel), TSR_ERROR_NO_VARIANT);
  hip.device = 1;
  EXPECT_EQ(tsr_kernel_select(a.archive, 0, &hip, &sel), TSR_OK);
}

TEST_F(StubHipDouble, LaunchErrorsMapToTheirStatus) {
  const Injected device_cases[] = {
      {"hipModuleLaunchKernel", 400, TSR_ERROR_INVALID_ARGUMENT,
       "hipModuleLaunchKernel failed on HIP device 0: hipErrorInvalidHandle (400)"},
      {"hipModuleLaunchKernel", 701, TSR_ERROR_LAUNCH_FAILED,
       "hipModuleLaunchKernel failed on HIP device 0: hipErrorLaunchOutOfResources (701)"},
      {"hipModuleLaunchKernel", 2, TSR_ERROR_OUT_OF_MEMORY,
       "hipModuleLaunchKernel failed on HIP device 0: hipErrorOutOfMemory (2)"},
      {"hipModuleLaunchKernel", 98, TSR_ERROR_LOAD_FAILED,
       "hipModuleLaunchKernel failed on HIP device 0: hipErrorInvalidDeviceFunction (98)"},
  };
  const Injected host_cases[] = {
      {"hipMalloc", 2, TSR_ERROR_OUT_OF_MEMORY, "hipMalloc failed on HIP device 0: hipErrorOutOfMemory (2)"},
      {"hipMemcpyHtoD", 1, TSR_ERROR_INVALID_ARGUMENT, "hipMemcpyHtoD failed on HIP device 0: hipErrorInvalidValue (1)"},
      {"hipDeviceSynchronize", 719, TSR_ERROR_LAUNCH_FAILED,
       "hipDeviceSynchronize failed on HIP device 0: hipErrorLaunchFailure (719)"},
      {"hipMemcpyDtoH", 700, TSR_ERROR_LAUNCH_FAILED,
       "hipMemcpyDtoH failed on HIP device 0: hipErrorIllegalAddress (700)"},
  };
  for (int host = 0; host < 2; ++host)
    for (const Injected& c : host ? host_cases : device_cases) {
      runtime_.restart();
      runtime_.devices({"gfx90a"});
      OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a")}));
      tsr_kernel* k = load(a);
      ASSERT_NE(k, nullptr);
      runtime_.fail(c.function, c.result, 0, 1);
      int64_t n = 300;
      std::vector<float> x(300, 1.0f), y(300, 2.0f), out(300);
      tsr_buffer_arg hb[3] = {{x.data(), 1200, TSR_DTYPE_F32, TSR_ROLE_IN},
                              {y.data(), 1200, TSR_DTYPE_F32, TSR_ROLE_IN},
                              {out.data(), 1200, TSR_DTYPE_F32, TSR_ROLE_OUT}};
      DeviceArgs db(300);
      auto launch = [&] {
        return host ? tsr_kernel_launch(k, hb, 3, &n, 1, nullptr)
                    : tsr_kernel_launch_device(k, 0, nullptr, db.buffers, 3, &db.n, 1);
      };
      EXPECT_EQ(launch(), c.status) << c.function;
      EXPECT_STREQ(tsr_kernel_last_message(k), c.message);
      // Nothing allocated stays allocated, and the next launch works.
      EXPECT_EQ(runtime_.count("hipMalloc") - (host && std::strcmp(c.function, "hipMalloc") == 0 ? 1 : 0),
                runtime_.count("hipFree"))
          << c.function;
      EXPECT_EQ(launch(), TSR_OK) << c.function << ": " << tsr_kernel_last_message(k);
      tsr_kernel_unload(k);
      kernels_.clear();
    }
}

TEST_F(StubHipDouble, ConcurrentHostLaunchesAllLand) {
  runtime_.devices({"gfx90a", "gfx1100"});
  OpenedArchive a(vadd_with_only({hip_double_variant("gfx90a"), hip_double_variant("gfx1100")}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const int64_t n = 100 + t;
      const size_t bytes = static_cast<size_t>(n) * 4;
      std::vector<float> x(n, static_cast<float>(t)), y(n, 1.0f), out(n, 0.0f);
      tsr_buffer_arg b[3] = {{x.data(), bytes, TSR_DTYPE_F32, TSR_ROLE_IN},
                             {y.data(), bytes, TSR_DTYPE_F32, TSR_ROLE_IN},
                             {out.data(), bytes, TSR_DTYPE_F32, TSR_ROLE_OUT}};
      for (int i = 0; i < 10; ++i) {
        if (tsr_kernel_launch(k, b, 3, &n, 1, nullptr) != TSR_OK) ++wrong;
        for (float v : out) wrong += v != static_cast<float>(t) + 1.0f;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(runtime_.count("hipModuleLaunchKernel"), 80u);
  EXPECT_EQ(runtime_.count("hipMalloc"), runtime_.count("hipFree"));
}

}  // namespace
}  // namespace tsr
