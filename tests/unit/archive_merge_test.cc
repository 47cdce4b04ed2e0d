// merge's verdict and receipt rules (docs/cli.md, "merge"): a hardware PASS
// supersedes PASS_EMULATED and NOT_RUN for the same variant, its receipts
// coming along; PASS_EMULATED supersedes NOT_RUN; any other difference is a
// conflict naming both inputs; receipts are a union and must bind to the
// merged variant.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "archive/archive_merge.h"
#include "archive/archive_writer.h"
#include "archive_test_support.h"

namespace tsr {
namespace {

using testing::receipt_for;
using testing::sample_contents;

// sample_contents() with vadd's x86:v3 verdict set to `v` (and max_abs_err).
ArchiveContents with_v3_verdict(ArchiveVerdict v, double max_abs_err = 1e-7) {
  ArchiveContents c = sample_contents();
  for (OracleVerdictRecord& r : c.kernels[0].verdicts)
    if (r.target == TargetName{"x86", "v3"}) {
      r.verdict = v;
      r.max_abs_err = max_abs_err;
      r.reason = v == ArchiveVerdict::not_run ? "no x86-64-v3 CPU" : "";
    }
  return c;
}

const OracleVerdictRecord& v3_verdict(const ArchiveContents& c) {
  for (const OracleVerdictRecord& r : c.kernels[0].verdicts)
    if (r.target == TargetName{"x86", "v3"}) return r;
  static OracleVerdictRecord none;
  return none;
}

Expected<ArchiveContents> merge2(const ArchiveContents& a, const ArchiveContents& b) {
  return merge_archives({{"a.tfat", a}, {"b.tfat", b}});
}

// `winner` over `loser`, in both input orders: the winner's record, and
// the merged archive writes.
void expect_supersedes(ArchiveVerdict winner, ArchiveVerdict loser) {
  SCOPED_TRACE(std::string(archive_verdict_name(winner)) + " over " + archive_verdict_name(loser));
  const ArchiveContents w = with_v3_verdict(winner), l = with_v3_verdict(loser);
  for (bool winner_first : {true, false}) {
    Expected<ArchiveContents> m = winner_first ? merge2(w, l) : merge2(l, w);
    ASSERT_TRUE(m.ok()) << m.error().message();
    EXPECT_EQ(v3_verdict(*m), v3_verdict(w));
    EXPECT_TRUE(serialize_archive(*m).ok());
  }
}

TEST(ArchiveMergeVerdicts, HardwarePassSupersedesNotRun) { expect_supersedes(ArchiveVerdict::pass, ArchiveVerdict::not_run); }
TEST(ArchiveMergeVerdicts, HardwarePassSupersedesPassEmulated) {
  expect_supersedes(ArchiveVerdict::pass, ArchiveVerdict::pass_emulated);
}
TEST(ArchiveMergeVerdicts, PassEmulatedSupersedesNotRun) {
  expect_supersedes(ArchiveVerdict::pass_emulated, ArchiveVerdict::not_run);
}

// The conflict message for two v3 verdicts, a.tfat's first.
std::string conflict(const char* a, const char* b) {
  return std::string("merge conflict: kernel 'vadd' verdict x86:v3 differs between 'a.tfat' (") + a +
         ") and 'b.tfat' (" + b + ")";
}

TEST(ArchiveMergeVerdicts, OtherDifferencesConflictNamingBothInputs) {
  using V = ArchiveVerdict;
  struct Case {
    ArchiveContents a, b;
    std::string message;
  };
  const std::vector<Case> cases = {
      {with_v3_verdict(V::pass), with_v3_verdict(V::fail), conflict("PASS", "FAIL")},
      {with_v3_verdict(V::fail), with_v3_verdict(V::pass), conflict("FAIL", "PASS")},
      {with_v3_verdict(V::fail, 0.5), with_v3_verdict(V::fail, 0.25), conflict("FAIL", "FAIL")},
      {with_v3_verdict(V::pass, 1e-7), with_v3_verdict(V::pass, 2e-7), conflict("PASS", "PASS")},
      {with_v3_verdict(V::pass_emulated, 1e-7), with_v3_verdict(V::pass_emulated, 3e-7),
       conflict("PASS_EMULATED", "PASS_EMULATED")},
      {with_v3_verdict(V::fail), with_v3_verdict(V::not_run), conflict("FAIL", "NOT_RUN")},
      {with_v3_verdict(V::pass_emulated), with_v3_verdict(V::fail), conflict("PASS_EMULATED", "FAIL")},
  };
  for (const Case& c : cases) {
    Expected<ArchiveContents> m = merge2(c.a, c.b);
    ASSERT_FALSE(m.ok()) << c.message;
    EXPECT_EQ(m.error().message(), c.message);
  }
  // Two NOT_RUN with different reasons are two different records as well.
  ArchiveContents other = sample_contents();
  other.kernels[0].verdicts[1].reason = "no CUDA driver";   // cuda:sm_90's
  Expected<ArchiveContents> m = merge2(sample_contents(), other);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(),
            "merge conflict: kernel 'vadd' verdict cuda:sm_90 differs between 'a.tfat' (NOT_RUN) and 'b.tfat' (NOT_RUN)");
}

// The qualification host's archive (PASS and its receipt) merged into the
// build host's (NOT_RUN): the receipt comes along with the PASS.
TEST(ArchiveMergeReceipts, ReceiptsComeAlongWithTheirPass) {
  ArchiveContents build_host = with_v3_verdict(ArchiveVerdict::not_run);
  ArchiveContents gpu_host = with_v3_verdict(ArchiveVerdict::pass);
  const ArchiveReceipt r = receipt_for(gpu_host.kernels[0], {"x86", "v3"}, "receipt from host 1\n");
  gpu_host.kernels[0].receipts = {r};
  Expected<ArchiveContents> m = merge2(build_host, gpu_host);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(v3_verdict(*m).verdict, ArchiveVerdict::pass);
  ASSERT_EQ(m->kernels[0].receipts.size(), 1u);
  EXPECT_EQ(m->kernels[0].receipts[0], r);
  Expected<std::vector<uint8_t>> bytes = serialize_archive(*m);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
}

TEST(ArchiveMergeReceipts, ReceiptsAreAUnion) {
  ArchiveContents a = sample_contents(), b = sample_contents();
  const ArchiveReceipt r1 = receipt_for(a.kernels[0], {"x86", "v3"}, "host 1\n");
  const ArchiveReceipt r2 = receipt_for(a.kernels[0], {"x86", "v3"}, "host 2\n");
  const ArchiveReceipt r3 = receipt_for(a.kernels[1], {"cuda", "sm_90"}, "gpu host\n");
  a.kernels[0].receipts = {r1};
  b.kernels[0].receipts = {r2, r1};
  b.kernels[1].receipts = {r3};
  Expected<ArchiveContents> m = merge2(a, b);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->kernels[0].receipts, (std::vector<ArchiveReceipt>{r1, r2}));
  EXPECT_EQ(m->kernels[1].receipts, (std::vector<ArchiveReceipt>{r3}));
  EXPECT_TRUE(serialize_archive(*m).ok());
}

TEST(ArchiveMergeReceipts, AReceiptNotBoundToTheMergedVariantIsAnError) {
  ArchiveContents a = sample_contents(), b = sample_contents();
  b.kernels[0].receipts = {ArchiveReceipt{{"x86", "v3"}, std::string(64, '0'), "stale\n"}};
  const std::string v3_hash = receipt_for(a.kernels[0], {"x86", "v3"}, "").artifact_sha256;
  Expected<ArchiveContents> m = merge2(a, b);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "merge: kernel 'vadd' receipt x86:v3 from 'b.tfat' binds to artifact sha256 "
                                 "0000000000000000…, but the merged variant's is " + v3_hash.substr(0, 16) + "…");
  b.kernels[0].receipts = {ArchiveReceipt{{"x86", "v4"}, v3_hash, "no such variant\n"}};
  m = merge2(a, b);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "merge: kernel 'vadd' receipt x86:v4 from 'b.tfat' binds to artifact sha256 " +
                                     v3_hash.substr(0, 16) + "…, but the merged archive has no such variant");
}

}  // namespace
}  // namespace tsr
