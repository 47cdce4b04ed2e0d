// Tests that compile and launch real x86 kernels: skipped where clang or an
// x86-64-v2 CPU is missing.
#pragma once

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

}  // namespace tsr::testing
