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

// Counts are checked before anything is sized by them: 2^40 buffers is a
// wrong count, not an allocation that fails.
TEST_F(StubLaunch, HugeCountsAreArgCountNotOutOfMemory) {
  const size_t huge = size_t(1) << 40;
  EXPECT_EQ(launch(args_, huge, &n_, 1), TSR_ERROR_ARG_COUNT);
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, huge, &n_, 1, nullptr), TSR_ERROR_ARG_COUNT);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "vadd: expected 3 buffers and 1 scalars, got 1099511627776 and 1");
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, 3, &n_, huge, nullptr), TSR_ERROR_ARG_COUNT);
  EXPECT_EQ(tsr_kernel_launch(kernel_, args_, SIZE_MAX, &n_, SIZE_MAX, nullptr), TSR_ERROR_ARG_COUNT);
  EXPECT_EQ(tsr_kernel_launch(kernel_, nullptr, huge, &n_, 1, nullptr), TSR_ERROR_NULL_ARGUMENT);
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

// More buffers than the launch keeps on its stack (and than the old cap of
// 256): every one is still checked. vadd's code reads b[0..2] only.
TEST(StubLaunchMany, ThreeHundredBuffersAreCheckedAndRun) {
  ArchiveContents c = testing::sample_contents();
  c.kernels.pop_back();
  ArchiveKernel& k = c.kernels[0];
  k.abi.bindings.clear();
  for (int i = 0; i < 300; ++i)
    k.abi.bindings.push_back(testing::buffer("in" + std::to_string(i), Role::input, DType::f32, {Dim{0, "n"}}));
  k.abi.bindings.push_back(testing::buffer("out", Role::output, DType::f32, {Dim{0, "n"}}));
  k.abi.bindings.push_back(Binding{"n", Role::scalar, DType::f32, {}});
  std::vector<uint8_t> bytes = *serialize_archive(c);
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &a), TSR_OK);
  tsr_select_options x86{"x86", 1};
  tsr_kernel* kernel = nullptr;
  ASSERT_EQ(tsr_kernel_load(a, "vadd", &x86, &kernel), TSR_OK) << tsr_archive_last_message(a);
  std::vector<float> data(301 * 4, 1.f);
  std::vector<tsr_buffer_arg> args;
  for (int i = 0; i < 301; ++i) args.push_back({&data[4 * i], 16, TSR_DTYPE_F32, i < 300 ? TSR_ROLE_IN : TSR_ROLE_OUT});
  int64_t n = 4;
  EXPECT_EQ(tsr_kernel_launch(kernel, args.data(), args.size(), &n, 1, nullptr), TSR_OK) << tsr_kernel_last_message(kernel);
  EXPECT_EQ(data[8], 2.f);   // b[2] = b[0] + 1 * b[1]
  args[299].dtype = TSR_DTYPE_F16;
  EXPECT_EQ(tsr_kernel_launch(kernel, args.data(), args.size(), &n, 1, nullptr), TSR_ERROR_DTYPE_MISMATCH);
  EXPECT_STREQ(tsr_kernel_last_message(kernel), "vadd: buffer 'in299' has dtype f16, the ABI says f32");
  tsr_kernel_unload(kernel);
  tsr_archive_close(a);
}

}  // namespace
}  // namespace tsr
