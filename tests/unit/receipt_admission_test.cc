// Admission (issue 10 item 4): a receipt binds to a variant only when every
// binding field matches; the first field that differs is named with both
// values; a receipt that matches nothing is reported; an attached receipt
// makes the variant's verdict a hardware PASS.
#include <gtest/gtest.h>

#include <algorithm>

#include "archive_test_support.h"
#include "codecs/codec.h"
#include "receipt_samples.h"
#include "archive/admission.h"
#include "support/sha256.h"

namespace tsr {
namespace {

// A receipt that binds exactly to sample_contents' vadd x86:v3.
Receipt binding_receipt(const ArchiveContents& c) { return testing::receipt_for(c.kernels[0], c.kernels[0].variants[0]); }

LoadedReceipt loaded(const Receipt& r, const std::string& path = "r.toml") { return {path, write_receipt(r), r}; }

bool names_unqualified(const std::vector<UnqualifiedVariant>& unqualified, const std::string& message) {
  return std::any_of(unqualified.begin(), unqualified.end(),
                     [&](const UnqualifiedVariant& u) { return u.message == message; });
}

TEST(ReceiptAdmission, ExactMatchIsAttachedAndTheVerdictBecomesAHardwarePass) {
  ArchiveContents c = testing::sample_contents();
  const Receipt r = binding_receipt(c);
  Expected<AdmissionReport> report = admit_receipts(c, {loaded(r)});
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->attached, 1u);
  EXPECT_TRUE(report->unmatched.empty());
  ASSERT_EQ(c.kernels[0].receipts.size(), 1u);
  EXPECT_EQ(c.kernels[0].receipts[0].target, r.target);
  EXPECT_EQ(c.kernels[0].receipts[0].artifact_sha256, r.artifact_sha256);
  EXPECT_EQ(c.kernels[0].receipts[0].bytes, write_receipt(r));
  const OracleVerdictRecord& v = c.kernels[0].verdicts[0];
  EXPECT_EQ(v.target.str(), "x86:v3");
  EXPECT_EQ(v.verdict, ArchiveVerdict::pass);
  EXPECT_EQ(v.seed, r.oracle.seed);
  // Every other variant is named as unqualified, without a difference to show.
  EXPECT_TRUE(names_unqualified(report->unqualified, "kernel 'vadd' variant x86:v1 has no hardware receipt"));
  // The same receipt twice binds once, and the second admission attaches nothing.
  Expected<AdmissionReport> again = admit_receipts(c, {loaded(r)});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(c.kernels[0].receipts.size(), 1u);
  EXPECT_EQ(again->attached, 0u);
  EXPECT_EQ(again->already_attached, 1u);
}

TEST(ReceiptAdmission, EveryBindingFieldIsComparedAndTheFirstDifferenceNamed) {
  const ArchiveContents base = testing::sample_contents();
  const Receipt good = binding_receipt(base);
  struct Case {
    const char* field;
    std::function<void(Receipt&)> change;
  };
  const std::vector<Case> cases = {
      {"identity", [](Receipt& r) { r.identity = std::string(64, 'f'); }},
      {"family", [](Receipt& r) { r.family = "matmul"; }},
      {"codec_version", [](Receipt& r) { r.codec_version += 1; }},
      {"artifact_sha256", [](Receipt& r) { r.artifact_sha256 = std::string(64, 'e'); }},
      {"artifact_key", [](Receipt& r) { r.artifact_key = "x86:v3/clang-15/-O3"; }},
  };
  for (const Case& k : cases) {
    ArchiveContents c = base;
    Receipt r = good;
    k.change(r);
    const std::optional<FieldDifference> d = first_difference(r, c.kernels[0], c.kernels[0].variants[0]);
    ASSERT_TRUE(d) << k.field;
    EXPECT_EQ(d->field, k.field);
    Expected<AdmissionReport> report = admit_receipts(c, {loaded(r, "bad.toml")});
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->attached, 0u);
    ASSERT_EQ(report->unmatched.size(), 1u);
    EXPECT_EQ(report->unmatched[0], "bad.toml matches no variant: kernel 'vadd' variant x86:v3: " +
                                        std::string(k.field) + " differs: receipt " + d->receipt_value + ", archive " +
                                        d->archive_value);
    // The variant left without a receipt says why.
    EXPECT_TRUE(names_unqualified(report->unqualified, "kernel 'vadd' variant x86:v3 has no hardware receipt: " +
                                                           std::string(k.field) + " differs: receipt " +
                                                           d->receipt_value + ", archive " + d->archive_value))
        << k.field;
    EXPECT_TRUE(c.kernels[0].receipts.empty());
  }
  EXPECT_FALSE(first_difference(good, base.kernels[0], base.kernels[0].variants[0]));
}

TEST(ReceiptAdmission, AReceiptForNoKernelOrNoVariantIsReported) {
  ArchiveContents c = testing::sample_contents();
  Receipt other_kernel = binding_receipt(c);
  other_kernel.kernel = "nope";
  Receipt other_target = binding_receipt(c);
  other_target.target = TargetName{"x86", "v4"};
  Expected<AdmissionReport> report = admit_receipts(c, {loaded(other_kernel, "a.toml"), loaded(other_target, "b.toml")});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->unmatched, (std::vector<std::string>{
                                   "a.toml matches no variant: the archive has no kernel 'nope'",
                                   "b.toml matches no variant: kernel 'vadd' has no x86:v4 variant"}));
}

TEST(ReceiptAdmission, AReceiptContradictingAFailVerdictIsAnError) {
  ArchiveContents c = testing::sample_contents();
  c.kernels[0].verdicts[0].verdict = ArchiveVerdict::fail;   // x86:v3
  Expected<AdmissionReport> report = admit_receipts(c, {loaded(binding_receipt(c), "r.toml")});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().message(),
            "r.toml: kernel 'vadd' variant x86:v3 has the verdict FAIL in the archive, which a hardware PASS "
            "receipt contradicts");
}

}  // namespace
}  // namespace tsr
