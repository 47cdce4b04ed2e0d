// Receipts in the archive (format 2.1, section RCPT, docs/archive-format.md):
// written deterministically, read back by the compiler's reader and by the
// stub's accessors, and a 2.0 archive without the section still reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive_mutation.h"
#include "archive_test_support.h"
#include "support/sha256.h"
#include "tesserart.h"

namespace tsr {
namespace {

using testing::sample_with_receipts;

const ArchiveKernel& kernel_named(const ArchiveContents& c, const std::string& name) {
  return *std::find_if(c.kernels.begin(), c.kernels.end(), [&](const ArchiveKernel& k) { return k.name == name; });
}

TEST(ArchiveReceipts, RoundTripSortedByTargetAndBytes) {
  const ArchiveContents c = sample_with_receipts();
  Expected<std::vector<uint8_t>> bytes = serialize_archive(c);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  Expected<ArchiveContents> back = read_archive(*bytes);
  ASSERT_TRUE(back.ok()) << back.error().message();
  const ArchiveKernel& vadd = kernel_named(*back, "vadd");
  ASSERT_EQ(vadd.receipts.size(), 3u);
  EXPECT_EQ(vadd.receipts[0], c.kernels[0].receipts[1]);   // x86:v1
  EXPECT_EQ(vadd.receipts[1], c.kernels[0].receipts[2]);   // x86:v3 "...A"
  EXPECT_EQ(vadd.receipts[2], c.kernels[0].receipts[0]);   // x86:v3 "...B"
  ASSERT_EQ(kernel_named(*back, "scale").receipts.size(), 1u);
  EXPECT_EQ(kernel_named(*back, "scale").receipts[0], c.kernels[1].receipts[0]);
  // Written again from what was read: the same bytes.
  EXPECT_EQ(*serialize_archive(*back), *bytes);
}

TEST(ArchiveReceipts, InputOrderAndDuplicatesDoNotChangeTheBytes) {
  ArchiveContents c = sample_with_receipts();
  const std::vector<uint8_t> canonical = *serialize_archive(c);
  std::reverse(c.kernels[0].receipts.begin(), c.kernels[0].receipts.end());
  c.kernels[0].receipts.push_back(c.kernels[0].receipts[1]);
  EXPECT_EQ(*serialize_archive(c), canonical);
}

TEST(ArchiveReceipts, StubAccessors) {
  const std::vector<uint8_t> bytes = *serialize_archive(sample_with_receipts());
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &a), TSR_OK);
  tsr_archive_info info;
  ASSERT_EQ(tsr_archive_get_info(a, &info), TSR_OK);
  EXPECT_EQ(info.major, 2u);
  EXPECT_EQ(info.minor, 3u);
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(a, "vadd", &k), TSR_OK);
  tsr_kernel_info ki;
  ASSERT_EQ(tsr_archive_kernel_at(a, k, &ki), TSR_OK);
  EXPECT_EQ(ki.receipt_count, 3u);
  tsr_receipt_info ri;
  ASSERT_EQ(tsr_kernel_receipt_at(a, k, 1, &ri), TSR_OK);
  EXPECT_STREQ(ri.target_kind, "x86");
  EXPECT_STREQ(ri.arch, "v3");
  const std::string text = "format = 1\nkernel = \"vadd\"  # A\n";
  EXPECT_EQ(std::string(ri.bytes, ri.size), text);
  EXPECT_EQ(ri.bytes[ri.size], '\0');   // a C string as well
  tsr_variant_info vi;
  ASSERT_EQ(tsr_kernel_variant_at(a, k, 4, &vi), TSR_OK);   // cuda:ptx, cuda:sm_90, x86:v1, v2, v3
  ASSERT_STREQ(vi.arch, "v3");
  EXPECT_EQ(to_hex(ri.artifact_sha256, 32), to_hex(vi.sha256, 32));
  EXPECT_EQ(tsr_kernel_receipt_at(a, k, 3, &ri), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_kernel_receipt_at(a, 2, 0, &ri), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsr_kernel_receipt_at(a, k, 0, nullptr), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(tsr_kernel_receipt_at(nullptr, k, 0, &ri), TSR_ERROR_NULL_ARGUMENT);
  ASSERT_EQ(tsr_archive_find_kernel(a, "scale", &k), TSR_OK);
  ASSERT_EQ(tsr_archive_kernel_at(a, k, &ki), TSR_OK);
  EXPECT_EQ(ki.receipt_count, 1u);
  ASSERT_EQ(tsr_kernel_receipt_at(a, k, 0, &ri), TSR_OK);
  EXPECT_STREQ(ri.arch, "sm_90");
  tsr_archive_close(a);
}

// An archive without receipts still has an empty RCPT table in 2.1; a 2.0
// archive has no RCPT section at all, and reads the same.
TEST(ArchiveReceipts, Format20WithoutRcptStillReads) {
  testing::ArchiveEditor e(testing::sample_bytes());
  ASSERT_EQ(testing::le(e.section("RCPT"), 4, 4), 0u);   // count 0
  e.remove_section("RCPT");
  std::vector<uint8_t> b = e.bytes();
  ASSERT_FALSE(b.empty());
  testing::put_le(b, 10, 0, 2);   // minor 0
  testing::reseal(b);
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  tsr_archive_info info;
  ASSERT_EQ(tsr_archive_get_info(a, &info), TSR_OK);
  EXPECT_EQ(info.minor, 0u);
  tsr_kernel_info ki;
  ASSERT_EQ(tsr_archive_kernel_at(a, 1, &ki), TSR_OK);
  EXPECT_EQ(ki.receipt_count, 0u);
  tsr_receipt_info ri;
  EXPECT_EQ(tsr_kernel_receipt_at(a, 1, 0, &ri), TSR_ERROR_INVALID_ARGUMENT);
  tsr_selection sel;
  tsr_select_options x86{"x86", 3};
  ASSERT_EQ(tsr_kernel_select(a, 1, &x86, &sel), TSR_OK);
  EXPECT_STREQ(sel.arch, "v3");
  tsr_archive_close(a);
  Expected<ArchiveContents> back = read_archive(b);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_TRUE(kernel_named(*back, "vadd").receipts.empty());
  EXPECT_TRUE(verify_archive(b).ok());
}

// What the format cannot represent is the writer's own error.
TEST(ArchiveReceipts, WriterRefusesWhatTheFormatCannotHold) {
  ArchiveContents c = sample_with_receipts();
  c.kernels[0].receipts[1].artifact_sha256 = std::string(64, 'A');
  Expected<std::vector<uint8_t>> bad_hash = serialize_archive(c);
  ASSERT_FALSE(bad_hash.ok());
  EXPECT_EQ(bad_hash.error().message(), "kernel 'vadd' receipt x86:v1: artifact sha256 is not 64 lower-case hex digits");
  c = sample_with_receipts();
  c.kernels[0].receipts[1].bytes = std::string("format = 1\0", 11);
  Expected<std::vector<uint8_t>> nul = serialize_archive(c);
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().message(),
            std::string("kernel 'vadd' receipt x86:v1: string 'format = 1\0' contains a NUL byte", 70));
  // A receipt for a target the kernel has no variant of: the validator's rule.
  c = sample_with_receipts();
  c.kernels[0].receipts[1].target = {"x86", "v4"};
  Expected<std::vector<uint8_t>> unbound = serialize_archive(c);
  ASSERT_FALSE(unbound.ok());
  EXPECT_EQ(unbound.error().message(), "kernel 'vadd' receipt x86:v4: the kernel has no variant of that target");
}

}  // namespace
}  // namespace tsr
