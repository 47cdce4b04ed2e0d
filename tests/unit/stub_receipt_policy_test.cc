// The runtime's receipt policy (docs/runtime.md, "Qualified variants"): a
// variant with a hardware receipt bound to its exact blob is preferred over
// an unqualified one of the same kind, and required with
// tsr_select_options.require_qualified or TSR_REQUIRE_QUALIFIED=1.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "tesserart.h"

namespace tsr {
namespace {

// The vadd kernel of sample_contents() (x86:v1, v2, v3, cuda:sm_90, cuda:ptx)
// with receipts on the given x86 arches only.
ArchiveContents vadd_qualified_on(const std::vector<std::string>& arches) {
  ArchiveContents c = testing::sample_contents();
  for (const std::string& arch : arches)
    c.kernels[0].receipts.push_back(testing::receipt_for(c.kernels[0], {"x86", arch}, "qualified " + arch + "\n"));
  return c;
}

class StubReceiptPolicy : public ::testing::Test {
 protected:
  void open(const ArchiveContents& c) {
    tsr_archive_close(archive_);   // the bytes an open archive borrows are replaced below
    archive_ = nullptr;
    bytes_ = *serialize_archive(c);
    ASSERT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
    ASSERT_EQ(tsr_archive_find_kernel(archive_, "vadd", &vadd_), TSR_OK);
  }
  // The arch selected among x86 variants at psABI `level`, or the status.
  std::string select(int level, int require) {
    tsr_select_options o{"x86", level, nullptr, 0, require};
    tsr_selection sel;
    tsr_status s = tsr_kernel_select(archive_, vadd_, &o, &sel);
    return s == TSR_OK ? std::string(sel.arch) : std::string(tsr_status_string(s));
  }
  void TearDown() override {
    unsetenv("TSR_REQUIRE_QUALIFIED");
    tsr_archive_close(archive_);
  }
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  size_t vadd_ = 0;
};

TEST_F(StubReceiptPolicy, WithoutReceiptsTheBestLevelRuns) {
  open(vadd_qualified_on({}));
  EXPECT_EQ(select(3, 0), "v3");
  EXPECT_EQ(select(2, 0), "v2");
}

TEST_F(StubReceiptPolicy, AQualifiedVariantIsPreferredOverAHigherUnqualifiedOne) {
  open(vadd_qualified_on({"v1"}));
  EXPECT_EQ(select(3, 0), "v1");
  open(vadd_qualified_on({"v1", "v2"}));
  EXPECT_EQ(select(3, 0), "v2");   // the best of the qualified ones
}

TEST_F(StubReceiptPolicy, AnUnqualifiedVariantRunsWhenNoQualifiedOneCan) {
  open(vadd_qualified_on({"v3"}));
  EXPECT_EQ(select(2, 0), "v2");   // v3 is qualified but this CPU (pretended) is v2
}

TEST_F(StubReceiptPolicy, RequiredPicksOnlyQualifiedVariants) {
  open(vadd_qualified_on({"v2"}));
  EXPECT_EQ(select(3, 1), "v2");
  EXPECT_EQ(select(1, 1), "not qualified");   // v1 runs here, but has no receipt
}

TEST_F(StubReceiptPolicy, RequiredWithoutAnyReceiptIsNotQualifiedNamingTheKernel) {
  open(vadd_qualified_on({}));
  EXPECT_EQ(select(3, 1), "not qualified");
  tsr_select_options o{"x86", 3, nullptr, 0, 1};
  tsr_kernel* k = nullptr;
  EXPECT_EQ(tsr_kernel_load(archive_, "vadd", &o, &k), TSR_ERROR_NOT_QUALIFIED);
  EXPECT_EQ(k, nullptr);
  EXPECT_STREQ(tsr_archive_last_message(archive_),
               "kernel 'vadd': variant x86:v3 has no hardware receipt, and qualified variants are required");
  EXPECT_STREQ(tsr_status_string(TSR_ERROR_NOT_QUALIFIED), "not qualified");
  EXPECT_EQ(int(TSR_ERROR_NOT_QUALIFIED), 23);
}

// Nothing runnable at all stays NO_VARIANT: the policy refuses variants, it
// does not explain a machine that has none.
TEST_F(StubReceiptPolicy, RequiredWithNothingRunnableIsStillNoVariant) {
  open(vadd_qualified_on({"v3"}));
  size_t scale;
  ASSERT_EQ(tsr_archive_find_kernel(archive_, "scale", &scale), TSR_OK);   // cuda only
  tsr_select_options o{"x86", 3, nullptr, 0, 1};
  tsr_selection sel;
  EXPECT_EQ(tsr_kernel_select(archive_, scale, &o, &sel), TSR_ERROR_NO_VARIANT);
  tsr_select_options v9{"x86", 3, "v9", 0, 1};
  EXPECT_EQ(tsr_kernel_select(archive_, vadd_, &v9, &sel), TSR_ERROR_NO_VARIANT);
}

TEST_F(StubReceiptPolicy, EnvironmentRequiresWhenTheOptionDoesNot) {
  open(vadd_qualified_on({"v1"}));
  setenv("TSR_REQUIRE_QUALIFIED", "1", 1);
  EXPECT_EQ(select(3, 0), "v1");
  tsr_kernel* k = nullptr;
  EXPECT_EQ(tsr_kernel_load(archive_, "vadd", nullptr, &k), TSR_OK);   // options NULL: env still applies
  tsr_selection sel;
  ASSERT_EQ(tsr_kernel_selection(k, &sel), TSR_OK);
  if (tsr_x86_level() >= 1) EXPECT_STREQ(sel.arch, "v1");
  tsr_kernel_unload(k);
  open(vadd_qualified_on({}));
  EXPECT_EQ(select(3, 0), "not qualified");
  EXPECT_EQ(select(3, -1), "v3");   // -1: never required (the oracle testing a variant)
  setenv("TSR_REQUIRE_QUALIFIED", "0", 1);
  EXPECT_EQ(select(3, 0), "v3");
  setenv("TSR_REQUIRE_QUALIFIED", "yes", 1);   // only "1" turns it on
  EXPECT_EQ(select(3, 0), "v3");
}

// Loaded under the policy, the qualified variant is what runs: vadd's x86:vN
// computes in0 + N * in1.
TEST_F(StubReceiptPolicy, TheQualifiedVariantIsTheOneThatRuns) {
  if (tsr_x86_level() < 3) GTEST_SKIP() << "this CPU runs no x86-64-v3 code";
  open(vadd_qualified_on({"v2"}));
  tsr_select_options o{"x86", 0, nullptr, 0, 1};
  tsr_kernel* k = nullptr;
  ASSERT_EQ(tsr_kernel_load(archive_, "vadd", &o, &k), TSR_OK) << tsr_archive_last_message(archive_);
  alignas(64) float x[32], y[32], out[32];
  for (int i = 0; i < 32; ++i) x[i] = float(i), y[i] = 1.0f, out[i] = -1.0f;
  tsr_buffer_arg args[3] = {{x, sizeof x, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {y, sizeof y, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {out, sizeof out, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  const int64_t n = 32;
  tsr_selection sel;
  ASSERT_EQ(tsr_kernel_launch(k, args, 3, &n, 1, &sel), TSR_OK);
  EXPECT_STREQ(sel.arch, "v2");
  EXPECT_EQ(out[7], 9.0f);   // 7 + 2 * 1
  tsr_kernel_unload(k);
}

}  // namespace
}  // namespace tsr
