// Every CUDA driver error the stub can meet, injected through the CUDA
// driver TEST DOUBLE, comes back as its tsr_status (docs/runtime.md, "GPU
// launch", error table) with the call, device, CUresult name and number in
// the thread's kernel message, and leaves no context pushed or memory held.
#include <gtest/gtest.h>

#include "cuda_double_fixture.h"

namespace tsr {
namespace {

using testing::OpenedArchive;

// The mapping itself, code by code (the double's tests below prove the
// backend uses it at each call).
TEST(StubCudaStatus, EveryCUresultHasItsStatus) {
  struct Row { int code; tsr_status load, launch; };
  const Row rows[] = {
      {0, TSR_OK, TSR_OK},
      {1, TSR_ERROR_LOAD_FAILED, TSR_ERROR_INVALID_ARGUMENT},      // INVALID_VALUE
      {400, TSR_ERROR_LOAD_FAILED, TSR_ERROR_INVALID_ARGUMENT},    // INVALID_HANDLE (the caller's stream)
      {2, TSR_ERROR_OUT_OF_MEMORY, TSR_ERROR_OUT_OF_MEMORY},
      {3, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},               // NOT_INITIALIZED
      {4, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},               // DEINITIALIZED
      {34, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},              // STUB_LIBRARY
      {46, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},              // DEVICE_UNAVAILABLE
      {100, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},             // NO_DEVICE
      {101, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},             // INVALID_DEVICE
      {803, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},             // SYSTEM_DRIVER_MISMATCH
      {804, TSR_ERROR_NO_DEVICE, TSR_ERROR_NO_DEVICE},             // COMPAT_NOT_SUPPORTED_ON_DEVICE
      {200, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // INVALID_IMAGE
      {209, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // NO_BINARY_FOR_GPU
      {218, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // INVALID_PTX
      {221, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // JIT_COMPILER_NOT_FOUND
      {222, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // UNSUPPORTED_PTX_VERSION
      {223, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // JIT_COMPILATION_DISABLED
      {500, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LOAD_FAILED},         // NOT_FOUND (no such entry)
      {201, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LAUNCH_FAILED},       // INVALID_CONTEXT
      {700, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LAUNCH_FAILED},       // ILLEGAL_ADDRESS
      {701, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LAUNCH_FAILED},       // LAUNCH_OUT_OF_RESOURCES
      {702, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LAUNCH_FAILED},       // LAUNCH_TIMEOUT
      {719, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LAUNCH_FAILED},       // LAUNCH_FAILED
      {999, TSR_ERROR_LOAD_FAILED, TSR_ERROR_LAUNCH_FAILED},       // UNKNOWN
  };
  for (const Row& r : rows) {
    EXPECT_EQ(tsr_cuda_status(r.code, TSR_ERROR_LOAD_FAILED), r.load) << r.code;
    EXPECT_EQ(tsr_cuda_status(r.code, TSR_ERROR_LAUNCH_FAILED), r.launch) << r.code;
  }
}

struct Injected {
  const char* function;
  int result;
  tsr_status status;
  const char* message;
};

// Failures while loading (tsr_kernel_load): the archive's message.
TEST_F(StubCudaDouble, LoadErrorsMapToTheirStatus) {
  const Injected cases[] = {
      {"cuDevicePrimaryCtxRetain", 2, TSR_ERROR_OUT_OF_MEMORY,
       "cuDevicePrimaryCtxRetain failed on CUDA device 0: CUDA_ERROR_OUT_OF_MEMORY (2)"},
      {"cuDevicePrimaryCtxRetain", 46, TSR_ERROR_NO_DEVICE,
       "cuDevicePrimaryCtxRetain failed on CUDA device 0: CUDA_ERROR_DEVICE_UNAVAILABLE (46)"},
      {"cuCtxPushCurrent_v2", 201, TSR_ERROR_LOAD_FAILED,
       "cuCtxPushCurrent failed on CUDA device 0: CUDA_ERROR_INVALID_CONTEXT (201)"},
      {"cuModuleLoadData", 209, TSR_ERROR_LOAD_FAILED,
       "cuModuleLoadData failed on CUDA device 0: CUDA_ERROR_NO_BINARY_FOR_GPU (209)"},
      {"cuModuleLoadData", 218, TSR_ERROR_LOAD_FAILED,
       "cuModuleLoadData failed on CUDA device 0: CUDA_ERROR_INVALID_PTX (218)"},
      {"cuModuleLoadData", 200, TSR_ERROR_LOAD_FAILED,
       "cuModuleLoadData failed on CUDA device 0: CUDA_ERROR_INVALID_IMAGE (200)"},
      {"cuModuleLoadData", 2, TSR_ERROR_OUT_OF_MEMORY,
       "cuModuleLoadData failed on CUDA device 0: CUDA_ERROR_OUT_OF_MEMORY (2)"},
      {"cuModuleLoadData", 4242, TSR_ERROR_LOAD_FAILED, "cuModuleLoadData failed on CUDA device 0: CUresult (4242)"},
      {"cuModuleGetFunction", 500, TSR_ERROR_LOAD_FAILED,
       "cuModuleGetFunction('vadd') failed on CUDA device 0: CUDA_ERROR_NOT_FOUND (500)"},
      {"cuFuncSetAttribute", 1, TSR_ERROR_LOAD_FAILED,
       "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536) failed on CUDA device 0: "
       "CUDA_ERROR_INVALID_VALUE (1)"},
  };
  for (const Injected& c : cases) {
    testing::CudaDriverDouble& driver = driver_;
    driver.restart();   // fresh per case
    driver.devices({90});
    driver.fail(c.function, c.result);
    OpenedArchive a(testing::vadd_with_only({testing::double_variant("cubin", 90, "sm_90", 65536)}));
    tsr_select_options cuda{"cuda", 0, nullptr, 0};
    tsr_kernel* k = nullptr;
    EXPECT_EQ(tsr_kernel_load(a.archive, "vadd", &cuda, &k), c.status) << c.function << " " << c.result;
    EXPECT_EQ(k, nullptr);
    EXPECT_STREQ(tsr_archive_last_message(a.archive), c.message);
    EXPECT_EQ(driver.context_depth(), 0) << c.function;
    // A module loaded before the failure is not leaked.
    size_t loaded = 0;
    for (const cudadouble_call& call : driver.calls("cuModuleLoadData")) loaded += call.result == 0;
    EXPECT_EQ(driver.count("cuModuleUnload"), loaded) << c.function;
  }
}

TEST_F(StubCudaDouble, DriverInitErrorsMeanNoDevice) {
  for (int code : {100, 3, 34, 999}) {
    driver_.restart();
    driver_.devices({90});
    driver_.fail("cuInit", code);
    OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
    tsr_select_options cuda{"cuda", 0, nullptr, 0};
    tsr_selection sel{};
    EXPECT_EQ(tsr_kernel_select(a.archive, 0, &cuda, &sel), TSR_ERROR_NO_DEVICE) << code;
    EXPECT_EQ(tsr_cuda_device_count(), 0);
    EXPECT_EQ(std::string(tsr_cuda_unavailable_reason()).rfind("CUDA driver present but cuInit failed: ", 0), 0u)
        << tsr_cuda_unavailable_reason();
  }
  driver_.restart();
  driver_.fail("cuInit", 100);
  EXPECT_EQ(tsr_cuda_device_count(), 0);
  EXPECT_STREQ(tsr_cuda_unavailable_reason(), "CUDA driver present but cuInit failed: CUDA_ERROR_NO_DEVICE (100)");
  tsr_cuda_use_driver_for_tests("/nonexistent/libcuda.so.1");
  EXPECT_STREQ(tsr_cuda_unavailable_reason(), "no CUDA driver (/nonexistent/libcuda.so.1 not found)");
}

struct Buffers {
  int64_t n = 300;
  std::vector<float> x = std::vector<float>(300, 1.0f), y = std::vector<float>(300, 2.0f), out = std::vector<float>(300);
  tsr_buffer_arg host[3] = {{x.data(), 1200, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {y.data(), 1200, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {out.data(), 1200, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  tsr_device_buffer device[3] = {{0x10000, 1200, TSR_DTYPE_F32, TSR_ROLE_IN},
                                 {0x20000, 1200, TSR_DTYPE_F32, TSR_ROLE_IN},
                                 {0x30000, 1200, TSR_DTYPE_F32, TSR_ROLE_OUT}};
};

// Failures while launching: the kernel's message; the next launch works.
TEST_F(StubCudaDouble, LaunchErrorsMapToTheirStatus) {
  const Injected device_cases[] = {
      {"cuLaunchKernel", 1, TSR_ERROR_INVALID_ARGUMENT,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_INVALID_VALUE (1)"},
      {"cuLaunchKernel", 400, TSR_ERROR_INVALID_ARGUMENT,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_INVALID_HANDLE (400)"},
      {"cuLaunchKernel", 2, TSR_ERROR_OUT_OF_MEMORY,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_OUT_OF_MEMORY (2)"},
      {"cuLaunchKernel", 4, TSR_ERROR_NO_DEVICE,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_DEINITIALIZED (4)"},
      {"cuLaunchKernel", 201, TSR_ERROR_LAUNCH_FAILED,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_INVALID_CONTEXT (201)"},
      {"cuLaunchKernel", 701, TSR_ERROR_LAUNCH_FAILED,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701)"},
      {"cuLaunchKernel", 719, TSR_ERROR_LAUNCH_FAILED,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_LAUNCH_FAILED (719)"},
      {"cuLaunchKernel", 999, TSR_ERROR_LAUNCH_FAILED,
       "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_UNKNOWN (999)"},
      {"cuCtxPushCurrent_v2", 201, TSR_ERROR_LAUNCH_FAILED,
       "cuCtxPushCurrent failed on CUDA device 0: CUDA_ERROR_INVALID_CONTEXT (201)"},
  };
  driver_.devices({90});
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  Buffers b;
  for (const Injected& c : device_cases) {
    driver_.fail(c.function, c.result, 0, 1);
    EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, b.device, 3, &b.n, 1), c.status) << c.function << c.result;
    EXPECT_STREQ(tsr_kernel_last_message(k), c.message);
    EXPECT_EQ(driver_.context_depth(), 0);
    EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, b.device, 3, &b.n, 1), TSR_OK) << "after " << c.function;
  }
  // The copying call: every step's failure, and every allocation freed after it.
  struct HostCase {
    Injected injected;
    int skip;   // calls of the function that succeed first
  };
  const HostCase host_cases[] = {
      {{"cuMemAlloc_v2", 2, TSR_ERROR_OUT_OF_MEMORY, "cuMemAlloc failed on CUDA device 0: CUDA_ERROR_OUT_OF_MEMORY (2)"},
       1},
      {{"cuMemcpyHtoD_v2", 1, TSR_ERROR_INVALID_ARGUMENT,
        "cuMemcpyHtoD failed on CUDA device 0: CUDA_ERROR_INVALID_VALUE (1)"},
       1},
      {{"cuLaunchKernel", 701, TSR_ERROR_LAUNCH_FAILED,
        "cuLaunchKernel failed on CUDA device 0: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701)"},
       0},
      {{"cuCtxSynchronize", 700, TSR_ERROR_LAUNCH_FAILED,
        "cuCtxSynchronize failed on CUDA device 0: CUDA_ERROR_ILLEGAL_ADDRESS (700)"},
       0},
      {{"cuMemcpyDtoH_v2", 999, TSR_ERROR_LAUNCH_FAILED, "cuMemcpyDtoH failed on CUDA device 0: CUDA_ERROR_UNKNOWN (999)"},
       0},
  };
  for (const HostCase& h : host_cases) {
    const Injected& c = h.injected;
    driver_.fail(c.function, c.result, h.skip, 1);
    const size_t allocs = driver_.count("cuMemAlloc_v2"), frees = driver_.count("cuMemFree_v2");
    EXPECT_EQ(tsr_kernel_launch(k, b.host, 3, &b.n, 1, nullptr), c.status) << c.function;
    EXPECT_STREQ(tsr_kernel_last_message(k), c.message);
    size_t made = 0;
    const std::vector<cudadouble_call> all = driver_.calls("cuMemAlloc_v2");
    for (size_t i = allocs; i < all.size(); ++i) made += all[i].result == 0;
    EXPECT_GT(made, 0u) << c.function;
    EXPECT_EQ(driver_.count("cuMemFree_v2") - frees, made) << c.function;
    EXPECT_EQ(driver_.context_depth(), 0);
  }
  EXPECT_EQ(tsr_kernel_launch(k, b.host, 3, &b.n, 1, nullptr), TSR_OK);
  EXPECT_EQ(b.out[299], 3.0f);
}

// A failed first load on a device is not remembered: the next launch loads again.
TEST_F(StubCudaDouble, FailedDeviceLoadIsRetried) {
  driver_.devices({90, 90});
  driver_.fail("cuModuleLoadData", 2, 1, 1);   // the load on device 1 fails once
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
  tsr_kernel* k = load(a);
  ASSERT_NE(k, nullptr);
  Buffers b;
  EXPECT_EQ(tsr_kernel_launch_device(k, 1, nullptr, b.device, 3, &b.n, 1), TSR_ERROR_OUT_OF_MEMORY);
  EXPECT_STREQ(tsr_kernel_last_message(k), "cuModuleLoadData failed on CUDA device 1: CUDA_ERROR_OUT_OF_MEMORY (2)");
  EXPECT_EQ(tsr_kernel_launch_device(k, 1, nullptr, b.device, 3, &b.n, 1), TSR_OK);
  EXPECT_EQ(driver_.count("cuModuleLoadData"), 3u);
  EXPECT_EQ(tsr_kernel_launch_device(k, 2, nullptr, b.device, 3, &b.n, 1), TSR_ERROR_NO_DEVICE);
  EXPECT_STREQ(tsr_kernel_last_message(k), "vadd: no CUDA device 2 (2 present)");
  EXPECT_EQ(tsr_kernel_launch_device(k, -1, nullptr, b.device, 3, &b.n, 1), TSR_ERROR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tsr
