// Tests that compile and launch real x86 kernels: skipped where clang or an
// x86-64-v2 CPU is missing.
#pragma once

#include <cpuid.h>
#include <gtest/gtest.h>

#include "registry/registry.h"

namespace tsr::testing {

class X86Fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    target_ = find_target("x86");
    if (!target_ || !target_->toolchain().found) GTEST_SKIP() << "x86 toolchain (clang) not available";
    if (!target_->device("v2").present) GTEST_SKIP() << "this CPU lacks x86-64-v2";
  }
  const Target* target_ = nullptr;
};

// Tests of x86:v4 kernels: also skipped where the CPU cannot run v4.
class X86V4Fixture : public X86Fixture {
 protected:
  void SetUp() override {
    X86Fixture::SetUp();
    if (IsSkipped()) return;
    if (!target_->device("v4").present) GTEST_SKIP() << target_->device("v4").description;
  }
};

// CPUID.(EAX=7,ECX=1):EAX[5], the bit the kernels' VDPBF16PS and VCVTNEPS2BF16 paths ask.
inline bool cpu_has_avx512_bf16() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) >= 7) __cpuid_count(7, 1, a, b, c, d);
  return (a >> 5 & 1u) != 0;
}

}  // namespace tsr::testing
