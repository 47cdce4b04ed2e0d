// The CUDA backend's launches, proven against the CUDA driver TEST DOUBLE
// (no GPU): tsr_kernel_launch_device hands the caller's device addresses
// and stream to cuLaunchKernel unchanged and never copies or synchronizes;
// tsr_kernel_launch copies in, launches, synchronizes and copies out;
// empty problems launch nothing; the dynamic shared memory attribute is set
// exactly when needed; the caller's context stack is left as it was.
#include <gtest/gtest.h>

#include <cstring>

#include "cuda_double_fixture.h"

namespace tsr {
namespace {

using testing::OpenedArchive;

constexpr const char* kNoCopyOrSync[] = {"cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuCtxSynchronize",
                                         "cuStreamSynchronize", "cuMemFree_v2"};

// Made-up device addresses: the double checks nothing about them, so any
// change on the way would show in the recorded parameters.
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

TEST_F(StubCudaDouble, DevicePointersAndStreamReachTheLaunchUnchanged) {
  driver_.devices({90});
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
  tsr_kernel* k = load(a);
  DeviceArgs args(1000);
  void* stream = reinterpret_cast<void*>(0x5ca1ab1e0ull);
  ASSERT_EQ(tsr_kernel_launch_device(k, 0, stream, args.buffers, 3, &args.n, 1), TSR_OK)
      << tsr_kernel_last_message(k);
  const std::vector<cudadouble_call> launches = driver_.calls("cuLaunchKernel");
  ASSERT_EQ(launches.size(), 1u);
  const cudadouble_call& c = launches[0];
  EXPECT_EQ(c.result, 0);
  EXPECT_EQ(c.device, 0);
  ASSERT_EQ(c.arg_count, 13);   // function, grid, block, shared, stream, 4 parameters
  EXPECT_EQ(c.args[1], 4u);     // cdiv(1000, 256)
  EXPECT_EQ(c.args[2], 1u);
  EXPECT_EQ(c.args[4], 256u);
  EXPECT_EQ(c.args[7], 0u);     // shared bytes
  EXPECT_EQ(c.args[8], 0x5ca1ab1e0ull);
  EXPECT_EQ(c.args[9], 0x7f0000001000ull);
  EXPECT_EQ(c.args[10], 0x7f0000201000ull);
  EXPECT_EQ(c.args[11], 0x7f0000401000ull);
  EXPECT_EQ(c.args[12], 1000u);
  // The NULL stream is passed as NULL: the legacy default stream.
  ASSERT_EQ(tsr_kernel_launch_device(k, 0, nullptr, args.buffers, 3, &args.n, 1), TSR_OK);
  EXPECT_EQ(driver_.calls("cuLaunchKernel").back().args[8], 0u);
  for (const char* fn : kNoCopyOrSync) EXPECT_EQ(driver_.count(fn), 0u) << fn;
  EXPECT_EQ(driver_.context_depth(), 0);
}

TEST_F(StubCudaDouble, DeviceLaunchesNeverCopyOrSynchronize) {
  driver_.devices({80, 90});
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90), testing::double_ptx(80)}));
  tsr_kernel* k = load(a);
  for (int64_t n : {1, 7, 256, 257, 100000}) {
    DeviceArgs args(n);
    for (int device : {0, 1}) {
      void* stream = reinterpret_cast<void*>(0x1000ull * (device + 1));
      ASSERT_EQ(tsr_kernel_launch_device(k, device, stream, args.buffers, 3, &args.n, 1), TSR_OK)
          << tsr_kernel_last_message(k);
      const cudadouble_call c = driver_.calls("cuLaunchKernel").back();
      EXPECT_EQ(c.device, device);
      EXPECT_EQ(c.args[8], 0x1000ull * (device + 1));
      EXPECT_EQ(c.args[12], static_cast<uint64_t>(n));
    }
  }
  EXPECT_EQ(driver_.count("cuLaunchKernel"), 10u);
  for (const char* fn : kNoCopyOrSync) EXPECT_EQ(driver_.count(fn), 0u) << fn;
  EXPECT_EQ(driver_.context_depth(), 0);
}

// tsr_kernel_launch is the copying convenience: the double adds on its own
// memory, so correct outputs prove inputs went in and outputs came back.
TEST_F(StubCudaDouble, HostLaunchCopiesLaunchesSynchronizesAndCopiesBack) {
  driver_.devices({90});
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
  tsr_kernel* k = load(a);
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
  EXPECT_STREQ(sel.route, "cubin");
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 1.5f * static_cast<float>(i)) << i;

  // The order of the calls, and the launch on the addresses just allocated.
  std::vector<std::string> order;
  for (const cudadouble_call& c : driver_.calls())
    if (std::strncmp(c.function, "cuMem", 5) == 0 || !std::strcmp(c.function, "cuLaunchKernel") ||
        !std::strcmp(c.function, "cuCtxSynchronize"))
      order.push_back(c.function);
  const std::vector<std::string> expected = {
      "cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemAlloc_v2", "cuLaunchKernel",
      "cuCtxSynchronize", "cuMemcpyDtoH_v2", "cuMemFree_v2", "cuMemFree_v2", "cuMemFree_v2"};
  EXPECT_EQ(order, expected);
  const std::vector<cudadouble_call> allocs = driver_.calls("cuMemAlloc_v2");
  const cudadouble_call launch = driver_.calls("cuLaunchKernel")[0];
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(allocs[i].args[1], 4000u);
    EXPECT_EQ(launch.args[9 + i], allocs[i].args[0]);
  }
  EXPECT_EQ(launch.args[8], 0u);   // the default stream
  EXPECT_EQ(driver_.context_depth(), 0);
}

// A zero-byte buffer (a legal NULL) gets no allocation: address 0.
TEST_F(StubCudaDouble, HostLaunchPassesZeroByteBuffersAsAddressZero) {
  ArchiveContents c = testing::vadd_with_only({testing::double_cubin(90)});
  // in1 gets a static zero extent; out and in0 keep n.
  c.kernels[0].abi.bindings[1].shape = {Dim{0, ""}};
  driver_.devices({90});
  OpenedArchive a(c);
  tsr_kernel* k = load(a);
  const int64_t n = 4;
  std::vector<float> x(n, 1.0f), out(n);
  tsr_buffer_arg b[3] = {{x.data(), 16, TSR_DTYPE_F32, TSR_ROLE_IN},
                         {nullptr, 0, TSR_DTYPE_F32, TSR_ROLE_IN},
                         {out.data(), 16, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  ASSERT_EQ(tsr_kernel_launch(k, b, 3, &n, 1, nullptr), TSR_OK) << tsr_kernel_last_message(k);
  EXPECT_EQ(driver_.count("cuMemAlloc_v2"), 2u);
  EXPECT_EQ(driver_.calls("cuLaunchKernel")[0].args[10], 0u);
  EXPECT_EQ(driver_.count("cuMemFree_v2"), 2u);
}

TEST_F(StubCudaDouble, EmptyProblemsLaunchNothing) {
  driver_.devices({90});
  OpenedArchive a(testing::vadd_with_only({testing::double_cubin(90)}));
  tsr_kernel* k = load(a);
  DeviceArgs args(0);
  for (auto& b : args.buffers) b.ptr = 0;   // zero bytes: no address needed
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, args.buffers, 3, &args.n, 1), TSR_OK);
  tsr_buffer_arg b[3] = {{nullptr, 0, TSR_DTYPE_F32, TSR_ROLE_IN},
                         {nullptr, 0, TSR_DTYPE_F32, TSR_ROLE_IN},
                         {nullptr, 0, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  EXPECT_EQ(tsr_kernel_launch(k, b, 3, &args.n, 1, nullptr), TSR_OK);
  EXPECT_EQ(driver_.count("cuLaunchKernel"), 0u);
  EXPECT_EQ(driver_.count("cuMemAlloc_v2"), 0u);
  EXPECT_EQ(driver_.count("cuCtxSynchronize"), 0u);
}

// Above 48 KiB of dynamic shared memory the function needs the opt-in
// attribute, set once per function (per device) and only then.
TEST_F(StubCudaDouble, MaxDynamicSharedMemorySetOnceWhenNeeded) {
  driver_.devices({90, 90});
  for (int64_t shared : {0, 1024, 49152, 49153, 100000, 232448}) {
    const size_t seen_set = driver_.count("cuFuncSetAttribute"), seen_launch = driver_.count("cuLaunchKernel");
    OpenedArchive a(testing::vadd_with_only({testing::double_variant("cubin", 90, "sm_90", shared)}));
    tsr_kernel* k = load(a);
    DeviceArgs args(512);
    for (int i = 0; i < 3; ++i)
      for (int device : {0, 1})
        ASSERT_EQ(tsr_kernel_launch_device(k, device, nullptr, args.buffers, 3, &args.n, 1), TSR_OK)
            << shared << ": " << tsr_kernel_last_message(k);
    const std::vector<cudadouble_call> all_set = driver_.calls("cuFuncSetAttribute");
    const std::vector<cudadouble_call> set(all_set.begin() + seen_set, all_set.end());
    if (shared <= 49152) {
      EXPECT_TRUE(set.empty()) << shared;
    } else {
      ASSERT_EQ(set.size(), 2u) << shared;   // one per device's function
      for (const cudadouble_call& c : set) {
        EXPECT_EQ(c.args[1], 8u);           // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        EXPECT_EQ(c.args[2], static_cast<uint64_t>(shared));
      }
      EXPECT_NE(set[0].args[0], set[1].args[0]);
    }
    const std::vector<cudadouble_call> launches = driver_.calls("cuLaunchKernel");
    ASSERT_EQ(launches.size(), seen_launch + 6);
    for (size_t i = seen_launch; i < launches.size(); ++i) EXPECT_EQ(launches[i].args[7], static_cast<uint64_t>(shared));
  }
}

TEST_F(StubCudaDouble, GridBeyondTheLimitIsAnInvalidSizeNotALaunch) {
  ArchiveContents c = testing::vadd_with_only({testing::double_cubin(90)});
  c.kernels[0].variants[0].metadata["cuda.grid"] = "1,cdiv(n,4),1";   // y <= 65535
  driver_.devices({90});
  OpenedArchive a(c);
  tsr_kernel* k = load(a);
  DeviceArgs ok(65535 * 4), big(65535 * 4 + 1);
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, ok.buffers, 3, &ok.n, 1), TSR_OK);
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, big.buffers, 3, &big.n, 1), TSR_ERROR_INVALID_SCALAR);
  EXPECT_STREQ(tsr_kernel_last_message(k),
               "vadd: cuda.grid '1,cdiv(n,4),1' exceeds the grid limit (x 2^31-1, y and z 65535) for these sizes");
  EXPECT_EQ(driver_.count("cuLaunchKernel"), 1u);
}

TEST_F(StubCudaDouble, BadGeometryMetadataIsCorrupt) {
  ArchiveContents c = testing::vadd_with_only({testing::double_cubin(90)});
  c.kernels[0].variants[0].metadata["cuda.block"] = "2048,1,1";
  driver_.devices({90});
  OpenedArchive a(c);
  tsr_kernel* k = load(a);
  DeviceArgs args(16);
  EXPECT_EQ(tsr_kernel_launch_device(k, 0, nullptr, args.buffers, 3, &args.n, 1), TSR_ERROR_CORRUPT);
  EXPECT_STREQ(tsr_kernel_last_message(k),
               "cuda variant has no valid cuda.block / cuda.grid metadata ('2048,1,1' exceeds the block limit (x "
               "and y 1024, z 64))");
  EXPECT_EQ(driver_.count("cuLaunchKernel"), 0u);
}

// Every parameter count: the old skeleton capped scalars at 64.
TEST_F(StubCudaDouble, ManyScalarsAreNotCapped) {
  ArchiveContents c = testing::vadd_with_only({testing::double_cubin(90)});
  for (int i = 0; i < 70; ++i) c.kernels[0].abi.bindings.push_back(Binding{"s" + std::to_string(i), Role::scalar, DType::f32, {}});
  driver_.devices({90});
  OpenedArchive a(c);
  tsr_kernel* k = load(a);
  std::vector<int64_t> scalars(71, 3);
  scalars[0] = 16;
  DeviceArgs args(16);
  ASSERT_EQ(tsr_kernel_launch_device(k, 0, nullptr, args.buffers, 3, scalars.data(), scalars.size()), TSR_OK)
      << tsr_kernel_last_message(k);
  EXPECT_EQ(driver_.count("cuLaunchKernel"), 1u);
}

}  // namespace
}  // namespace tsr
