// Verdict kinds in the archive (format 2.1): PASS_EMULATED is its own number
// (3) through the writer, the stub's verdict API, the compiler's reader and
// inspect; a verdict number from a newer minor version is never a PASS.
#include <gtest/gtest.h>

#include "archive/archive_inspect.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive_mutation.h"
#include "archive_test_support.h"
#include "tesserart.h"

namespace tsr {
namespace {

// sample_contents' vadd with one verdict of each kind, sorted by target.
ArchiveContents contents_with_every_verdict_kind() {
  ArchiveContents c = testing::sample_contents();
  ArchiveKernel& vadd = c.kernels[0];
  vadd.verdicts = {
      {{"cuda", "ptx"}, ArchiveVerdict::fail, 3.0, 1.0, 1e-5, 1e-5, 42, "trial 0: 1 of 7 elements outside budget"},
      {{"cuda", "sm_90"}, ArchiveVerdict::pass_emulated, 1e-7, 1e-7, 1e-5, 1e-5, 42,
       "emulated on the CPU: semantics, not hardware"},
      {{"x86", "v1"}, ArchiveVerdict::not_run, 0, 0, 1e-5, 1e-5, 42, "skipped by request (--no-oracle)"},
      {{"x86", "v3"}, ArchiveVerdict::pass, 1e-7, 2e-7, 1e-5, 1e-5, 42, ""},
  };
  return c;
}

std::vector<uint8_t> serialize(const ArchiveContents& c) {
  Expected<std::vector<uint8_t>> bytes = serialize_archive(c);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(ArchiveVerdictKinds, WriterWritesFormat23) {
  const std::vector<uint8_t> bytes = serialize(contents_with_every_verdict_kind());
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(testing::le(bytes, 8, 2), 2u);    // major
  EXPECT_EQ(testing::le(bytes, 10, 2), 3u);   // minor: verdict 3 and RCPT (2.1), hip and xdna variants (2.2), routes (2.3)
}

TEST(ArchiveVerdictKinds, StubReportsEachKindByItsPinnedNumber) {
  const std::vector<uint8_t> bytes = serialize(contents_with_every_verdict_kind());
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &a), TSR_OK);
  size_t k = 0;
  ASSERT_EQ(tsr_archive_find_kernel(a, "vadd", &k), TSR_OK);
  const std::vector<std::pair<std::string, tsr_verdict>> expected = {{"cuda:ptx", TSR_VERDICT_FAIL},
                                                                     {"cuda:sm_90", TSR_VERDICT_PASS_EMULATED},
                                                                     {"x86:v1", TSR_VERDICT_NOT_RUN},
                                                                     {"x86:v3", TSR_VERDICT_PASS}};
  for (size_t v = 0; v < expected.size(); ++v) {
    tsr_verdict_info info{};
    ASSERT_EQ(tsr_kernel_verdict_at(a, k, v, &info), TSR_OK);
    EXPECT_EQ(std::string(info.target_kind) + ":" + info.arch, expected[v].first);
    EXPECT_EQ(info.verdict, expected[v].second) << expected[v].first;
  }
  EXPECT_EQ(TSR_VERDICT_PASS_EMULATED, 3);   // pinned
  tsr_archive_close(a);
}

TEST(ArchiveVerdictKinds, CompilerReaderRoundTripsPassEmulated) {
  const ArchiveContents in = contents_with_every_verdict_kind();
  Expected<ArchiveContents> back = read_archive(serialize(in));
  ASSERT_TRUE(back.ok()) << back.error().message();
  ASSERT_EQ(back->kernels[1].name, "vadd");
  EXPECT_EQ(back->kernels[1].verdicts, in.kernels[0].verdicts);
}

TEST(ArchiveVerdictKinds, InspectNamesPassEmulated) {
  Expected<std::string> json = inspect_json(serialize(contents_with_every_verdict_kind()));
  ASSERT_TRUE(json.ok()) << json.error().message();
  EXPECT_NE(json->find("\"verdict\": \"PASS_EMULATED\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"format\": \"2.3\""), std::string::npos);
}

// A newer minor version's verdict number: shown as unknown with its number by
// inspect, read as NOT_RUN (never PASS) by the compiler's reader.
TEST(ArchiveVerdictKinds, UnknownVerdictNumberIsNeverAPass) {
  std::vector<uint8_t> bytes = serialize(contents_with_every_verdict_kind());
  for (const auto& [tag, range] : testing::section_ranges(bytes)) {
    if (tag != "VERD") continue;
    const size_t record_size = testing::le(bytes, range.first, 4);
    const size_t count = testing::le(bytes, range.first + 4, 4);
    for (size_t i = 0; i < count; ++i) {
      uint8_t& verdict = bytes[range.first + 8 + i * record_size + 16];
      if (verdict == TSR_VERDICT_PASS) verdict = 7;
    }
  }
  testing::reseal(bytes);
  Expected<std::string> json = inspect_json(bytes);
  ASSERT_TRUE(json.ok()) << json.error().message();
  EXPECT_NE(json->find("\"verdict\": \"UNKNOWN(7)\""), std::string::npos) << *json;
  EXPECT_EQ(json->find("\"verdict\": \"PASS\""), std::string::npos);
  Expected<ArchiveContents> back = read_archive(bytes);
  ASSERT_TRUE(back.ok()) << back.error().message();
  for (const ArchiveKernel& k : back->kernels)
    for (const OracleVerdictRecord& v : k.verdicts) EXPECT_NE(v.verdict, ArchiveVerdict::pass) << k.name;
}

}  // namespace
}  // namespace tsr
