// Launch misuse: every bad call returns its documented status before any
// kernel code runs. Each call runs in a forked child; dying by a signal fails.
#include <gtest/gtest.h>

#include <cstdlib>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "tesserart.h"

namespace tsr {
namespace {

class StubLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = *serialize_archive(testing::sample_contents());
    ASSERT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
    tsr_select_options x86{"x86", 0};
    ASSERT_EQ(tsr_kernel_load(archive_, "vadd", &x86, &kernel_), TSR_OK) << tsr_archive_last_message(archive_);
    for (int i = 0; i < 64; ++i) { x_[i] = float(i); y_[i] = 1.f; out_[i] = 0.f; }
    args_[0] = {x_, sizeof x_, TSR_DTYPE_F32, TSR_ROLE_IN};
    args_[1] = {y_, sizeof y_, TSR_DTYPE_F32, TSR_ROLE_IN};
    args_[2] = {out_, sizeof out_, TSR_DTYPE_F32, TSR_ROLE_OUT};
  }
  void TearDown() override {
    tsr_kernel_unload(kernel_);
    tsr_archive_close(archive_);
  }
  // Launches in a child with (possibly modified) arguments; returns the status.
  int launch(const tsr_buffer_arg* args, size_t nargs, const int64_t* scalars, size_t nscalars) {
    int rc = testing::run_in_child([&] {
      return int(tsr_kernel_launch(kernel_, args, nargs, scalars, nscalars, nullptr));
    });
    EXPECT_GE(rc, 0) << "the launch died by signal " << -rc;
    return rc;
  }

  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  tsr_kernel* kernel_ = nullptr;
  alignas(64) float x_[64], y_[64], out_[64];
  tsr_buffer_arg args_[4];
  int64_t n_ = 64;
};

TEST_F(StubLaunch, ValidLaunchRuns) {
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_OK);
  tsr_selection sel;
  ASSERT_EQ(tsr_kernel_launch(kernel_, args_, 3, &n_, 1, &sel), TSR_OK);
  EXPECT_STREQ(sel.target_kind, "x86");
  EXPECT_GT(out_[5], 5.f);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "");
}

TEST_F(StubLaunch, NullBufferIsRejected) {
  args_[1].data = nullptr;
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, 3, &n_, 1, nullptr), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "vadd: buffer 'in1' is NULL");
}

TEST_F(StubLaunch, NullArraysAndKernelAreRejected) {
  EXPECT_EQ(launch(nullptr, 3, &n_, 1), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(launch(args_, 3, nullptr, 1), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(testing::run_in_child([&] { return int(tsr_kernel_launch(nullptr, args_, 3, &n_, 1, nullptr)); }),
            TSR_ERROR_NULL_ARGUMENT);
}

TEST_F(StubLaunch, TooFewOrTooManyArgumentsAreRejected) {
  args_[3] = args_[2];
  EXPECT_EQ(launch(args_, 2, &n_, 1), TSR_ERROR_ARG_COUNT);
  EXPECT_EQ(launch(args_, 4, &n_, 1), TSR_ERROR_ARG_COUNT);
  int64_t two[2] = {64, 64};
  EXPECT_EQ(launch(args_, 3, two, 2), TSR_ERROR_ARG_COUNT);
  EXPECT_EQ(launch(args_, 3, two, 0), TSR_ERROR_ARG_COUNT);
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, 2, &n_, 1, nullptr), TSR_ERROR_ARG_COUNT);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "vadd: expected 3 buffers and 1 scalars, got 2 and 1");
}

TEST_F(StubLaunch, BufferSmallerThanTheAbiRequiresIsRejected) {
  int64_t big = 65;   // 65 floats do not fit in 64
  EXPECT_EQ(launch(args_, 3, &big, 1), TSR_ERROR_BUFFER_TOO_SMALL);
  args_[2].bytes = 63 * 4;
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, 3, &n_, 1, nullptr), TSR_ERROR_BUFFER_TOO_SMALL);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "vadd: buffer 'out' has 252 bytes, needs 256");
}

TEST_F(StubLaunch, WrongDtypeTagIsRejected) {
  args_[0].dtype = TSR_DTYPE_BF16;
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_ERROR_DTYPE_MISMATCH);
  args_[0].dtype = static_cast<tsr_dtype>(77);
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_ERROR_DTYPE_MISMATCH);
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, 3, &n_, 1, nullptr), TSR_ERROR_DTYPE_MISMATCH);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "vadd: buffer 'in0' has dtype ?, the ABI says f32");
}

TEST_F(StubLaunch, WrongRoleIsRejected) {
  args_[2].role = TSR_ROLE_IN;
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_ERROR_ROLE_MISMATCH);
}

TEST_F(StubLaunch, MisalignedBufferIsRejected) {
  args_[0].data = reinterpret_cast<char*>(x_) + 1;
  args_[0].bytes = sizeof x_;   // the size passes; only the alignment is wrong
  EXPECT_EQ(launch(args_, 3, &n_, 1), TSR_ERROR_MISALIGNED);
}

TEST_F(StubLaunch, NegativeOrOverflowingScalarIsRejected) {
  int64_t negative = -1;
  EXPECT_EQ(launch(args_, 3, &negative, 1), TSR_ERROR_INVALID_SCALAR);
  int64_t huge = INT64_MAX;   // times 4 bytes overflows uint64
  EXPECT_EQ(launch(args_, 3, &huge, 1), TSR_ERROR_INVALID_SCALAR);
}

TEST_F(StubLaunch, ZeroElementsIsAValidLaunch) {
  int64_t zero = 0;
  EXPECT_EQ(launch(args_, 3, &zero, 1), TSR_OK);
}

}  // namespace
}  // namespace tsr
