// The offsets the stub's HIP backend reads hipDeviceProp_t at (tsr_hip.h:
// the R0000 layout that ROCm 5's hipGetDeviceProperties fills and ROCm 6
// keeps exported under that name) against ROCm 5.2's own header. Skips with
// the reason where /usr/include/hip is not installed (libamdhip64-dev).
#include <gtest/gtest.h>

#include <cstddef>

extern "C" {
#include "../../runtime-stub/src/tsr_hip.h"
}

#if __has_include(<hip/hip_runtime_api.h>)
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#define TSR_HAVE_HIP_HEADER 1
static_assert(offsetof(hipDeviceProp_t, name) == TSR_HIP_R0000_NAME_OFFSET);
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == TSR_HIP_R0000_GCN_ARCH_NAME_OFFSET);
static_assert(sizeof(hipDeviceProp_t::gcnArchName) == TSR_HIP_STRING_SIZE);
static_assert(sizeof(hipDeviceProp_t::name) == TSR_HIP_STRING_SIZE);
static_assert(sizeof(hipDeviceProp_t) <= TSR_HIP_PROP_BUFFER);
#endif

namespace {

TEST(HipDevicePropLayout, GcnArchNameOffsetIsRocm52s) {
#ifdef TSR_HAVE_HIP_HEADER
  EXPECT_EQ(offsetof(hipDeviceProp_t, gcnArchName), 396u);
  EXPECT_EQ(sizeof(hipDeviceProp_t), static_cast<size_t>(TSR_HIP_R0000_PROP_SIZE));
  // ROCm 6's R0600 struct is larger; the stub's buffer leaves room for far more.
  EXPECT_GE(TSR_HIP_PROP_BUFFER, 4 * TSR_HIP_R0000_PROP_SIZE);
#else
  GTEST_SKIP() << "hip/hip_runtime_api.h not installed (libamdhip64-dev): layout not checked";
#endif
}

}  // namespace
