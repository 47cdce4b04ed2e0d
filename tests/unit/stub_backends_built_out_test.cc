// A stub built with its vendor backends out (TESSERAC_STUB_CUDA, _HIP, _XRT
// off: libtesserart_x86only.so, loaded here by path) answers a GPU kernel as a
// machine without the vendor's library does, TSR_ERROR_NO_DEVICE, where the
// full stub (linked statically, pointed at the test doubles) selects it.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <vector>

#include "cuda_double_fixture.h"
#include "hip_double_fixture.h"

namespace tsr {
namespace {

using OpenMemoryFn = tsr_status (*)(const void*, size_t, const tsr_open_options*, tsr_archive**);
using SelectFn = tsr_status (*)(tsr_archive*, size_t, const tsr_select_options*, tsr_selection*);
using CloseFn = void (*)(tsr_archive*);

std::vector<uint8_t> cuda_and_hip_vadd() {
  return *serialize_archive(testing::vadd_with_only({testing::double_cubin(90), testing::hip_double_variant("gfx90a")}));
}

TEST(StubBackendsBuiltOut, GpuKindsFindNoDevice) {
  void* stub = dlopen(TSR_STUB_X86ONLY_SO, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(stub, nullptr) << dlerror();
  auto open_memory = reinterpret_cast<OpenMemoryFn>(dlsym(stub, "tsr_archive_open_memory"));
  auto select = reinterpret_cast<SelectFn>(dlsym(stub, "tsr_kernel_select"));
  auto close = reinterpret_cast<CloseFn>(dlsym(stub, "tsr_archive_close"));
  ASSERT_TRUE(open_memory && select && close);
  const std::vector<uint8_t> bytes = cuda_and_hip_vadd();
  tsr_archive* a = nullptr;
  ASSERT_EQ(open_memory(bytes.data(), bytes.size(), nullptr, &a), TSR_OK);
  for (const char* kind : {"cuda", "hip", static_cast<const char*>(nullptr)}) {
    tsr_select_options o{kind, 0, nullptr, 0};
    tsr_selection sel{};
    EXPECT_EQ(select(a, 0, &o, &sel), TSR_ERROR_NO_DEVICE) << (kind ? kind : "any kind");
  }
  close(a);
  dlclose(stub);
}

TEST(StubBackendsBuiltOut, TheFullStubSelectsTheSameArchive) {
  testing::CudaDriverDouble cuda;
  testing::HipRuntimeDouble hip;
  ASSERT_TRUE(cuda.ok() && hip.ok());
  cuda.devices({90});
  hip.devices({"gfx90a"});
  const std::vector<uint8_t> bytes = cuda_and_hip_vadd();
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &a), TSR_OK);
  for (const char* kind : {"cuda", "hip"}) {
    tsr_select_options o{kind, 0, nullptr, 0};
    tsr_selection sel{};
    EXPECT_EQ(tsr_kernel_select(a, 0, &o, &sel), TSR_OK) << kind << ": " << tsr_archive_last_message(a);
  }
  tsr_archive_close(a);
}

}  // namespace
}  // namespace tsr
