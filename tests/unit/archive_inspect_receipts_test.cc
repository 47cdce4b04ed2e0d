// `inspect` shows each variant's receipts (docs/cli.md): in --json their
// size, SHA-256, signer (or null, or a malformed trailer's error) and exact
// text; in text one line per receipt under its variant.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "archive/archive_inspect.h"
#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "receipt_samples.h"
#include "receipt_test_keys.h"
#include "support/file_io.h"
#include "support/sha256.h"
#include "support/subprocess.h"

namespace tsr {
namespace {

using nlohmann::json;

struct Sample {
  ArchiveContents contents = testing::sample_with_receipts();
  std::string signed_text, key_id, malformed_text, decodable_text = write_receipt(testing::x86_receipt());
  explicit Sample(const testing::TestKey& key) {
    ArchiveKernel& vadd = contents.kernels[0];
    signed_text = *sign_receipt_bytes("format_version = 1\nkernel = \"vadd\"  # C\n", *key.signing());
    key_id = signing_key_id(*key.signing());
    malformed_text = "format_version = 1\n# tesserac-signature ed25519 zz\n";
    vadd.receipts.push_back(testing::receipt_for(vadd, {"x86", "v3"}, signed_text));
    vadd.receipts.push_back(testing::receipt_for(vadd, {"x86", "v2"}, malformed_text));
    vadd.receipts.push_back(testing::receipt_for(vadd, {"x86", "v1"}, decodable_text));   // facts need no binding
  }
};

const json& variant(const json& j, const std::string& kernel, const std::string& target) {
  for (const json& k : j["kernels"])
    if (k["name"] == kernel)
      for (const json& v : k["variants"])
        if (v["target"] == target) return v;
  static const json none;
  return none;
}

TEST(ArchiveInspectReceipts, JsonListsEachVariantsReceipts) {
  testing::TestKey key("inspect");
  Sample s(key);
  Expected<std::string> text = inspect_json(*serialize_archive(s.contents));
  ASSERT_TRUE(text.ok()) << text.error().message();
  const json j = json::parse(*text);
  EXPECT_EQ(j["format"], "2.3");
  const json& v3 = variant(j, "vadd", "x86:v3")["receipts"];
  ASSERT_EQ(v3.size(), 3u);   // sorted by bytes: "...# A", "...# B", then the signed one
  EXPECT_EQ(v3[0]["text"], "format = 1\nkernel = \"vadd\"  # A\n");
  EXPECT_EQ(v3[0]["size"], 32);
  EXPECT_EQ(v3[0]["sha256"], sha256_hex(std::string_view("format = 1\nkernel = \"vadd\"  # A\n")));
  EXPECT_TRUE(v3[0]["signature"].is_null());
  EXPECT_TRUE(v3[0]["facts"].is_null());   // "format = 1 ..." is no receipt the codec reads
  EXPECT_EQ(v3[2]["text"], s.signed_text);
  EXPECT_EQ(v3[2]["signature"], json({{"key_id", s.key_id}}));
  const json& v2 = variant(j, "vadd", "x86:v2")["receipts"];
  ASSERT_EQ(v2.size(), 1u);
  EXPECT_EQ(v2[0]["signature"]["error"],
            "malformed signature trailer (expected '# tesserac-signature ed25519 <key id: 64 lower-case hex digits> "
            "<signature: 128 lower-case hex digits>')");
  const json& v1 = variant(j, "vadd", "x86:v1")["receipts"];
  ASSERT_EQ(v1.size(), 2u);
  EXPECT_EQ(v1[1]["text"], s.decodable_text);
  EXPECT_EQ(v1[1]["facts"], json({{"device", "AMD EPYC 9B14 96-Core Processor"}, {"driver", "6.1.0-18-amd64"},
                                  {"toolchain", "clang 14.0.6"}, {"tesserac_version", "0.1.0"},
                                  {"qualified_at", "2026-12-01T14:00:00Z"}, {"max_abs_err", 0.0}, {"max_rel_err", 0.0}}));
  EXPECT_EQ(variant(j, "vadd", "cuda:ptx")["receipts"], json::array());
  EXPECT_EQ(variant(j, "scale", "cuda:sm_90")["receipts"].size(), 1u);
}

TEST(ArchiveInspectReceipts, TextShowsOneLinePerReceiptUnderItsVariant) {
  testing::TestKey key("inspect-text");
  Sample s(key);
  const std::string path = (key.dir / "r.tfat").string();
  ASSERT_TRUE(write_file_atomic(path, *serialize_archive(s.contents)).ok());
  ProcessResult r = run_process({TSR_BINARY_DIR "/tesserac", "inspect", path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto line_after = [&](const std::string& start) {
    size_t at = r.output.find(start);
    if (at == std::string::npos) return std::string("(no '" + start + "')");
    size_t next = r.output.find('\n', at) + 1;
    return r.output.substr(next, r.output.find('\n', next) - next);
  };
  const std::string a = "format = 1\nkernel = \"vadd\"  # A\n";
  EXPECT_EQ(line_after("  variant x86:v3 "), "    receipt 32 bytes  sha256 " + sha256_hex(std::string_view(a)).substr(0, 16) + "…  unsigned  (does not decode: see tesserac verify)");
  EXPECT_NE(r.output.find("…  signed by key " + s.key_id.substr(0, 16) + "…  (does not decode"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("…  malformed signature trailer (expected"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("…  unsigned  AMD EPYC 9B14 96-Core Processor, 2026-12-01T14:00:00Z\n"), std::string::npos)
      << r.output;
  // A variant without receipts is followed by the next variant directly.
  EXPECT_EQ(line_after("  variant cuda:ptx ").rfind("  variant cuda:sm_90 ", 0), 0u);
}

}  // namespace
}  // namespace tsr
