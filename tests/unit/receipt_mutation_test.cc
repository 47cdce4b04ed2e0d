// Bad receipts must give diagnostics, never a crash or an escaped exception:
// the sample receipts and every golden bad receipt, mutated many times with a
// fixed seed, go through the decoder. A receipt that decodes must write back
// to bytes that decode to the same canonical bytes. tests/fuzz/
// receipt_decoder_fuzz.cc is the same check under libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "text_mutation.h"
#include "receipt_samples.h"
#include "receipts/receipt.h"

namespace tsr {
namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> texts;
  for (const Receipt& r : testing::sample_receipts()) texts.push_back(write_receipt(r));
  for (const auto& e : std::filesystem::directory_iterator(TSR_SOURCE_DIR "/tests/bad_receipts")) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
  }
  return texts;
}

TEST(ReceiptMutation, DecoderNeverCrashesOrThrows) {
  const std::vector<std::string> texts = corpus();
  ASSERT_GT(texts.size(), 25u);
  static const std::vector<std::string> tokens = {"=", "[", "]", "{", "}", "[[", "]]", ".", ",", "\"", "'", "'''", "\"\"\"", "\n",
                                 " ", "#", "\\u0000", "\\", "0", "-1", "1e999", "nan", "inf", "0x7f", "true",
                                 "2026-12-01T14:00:00Z", "1979-05-27", "PASS", "a.b", "\t", "\r\n",
                                 "# tesserac-signature ed25519 "};
  testing::expect_diagnostics_for_mutations(texts, tokens, 20261201, 250, "m.toml",
                                            [](const std::string& text, DiagnosticEngine& diag) {
    std::optional<Receipt> receipt = decode_receipt(text, "m.toml", diag);
    if (!receipt) return false;
    // What decodes has one canonical form, and it decodes again.
    const std::string canonical = write_receipt(*receipt);
    DiagnosticEngine again;
    std::optional<Receipt> second = decode_receipt(canonical, "m.toml", again);
    EXPECT_TRUE(second) << again.render() << "\n" << canonical;
    if (second) EXPECT_EQ(write_receipt(*second), canonical);
    return true;
  });
}

TEST(ReceiptMutation, DeepNestingIsAnErrorNotACrash) {
  for (const std::string& text : {"x = " + std::string(100000, '['), "x = " + std::string(50000, '{'),
                                  std::string(20000, '[')}) {
    DiagnosticEngine diag;
    EXPECT_FALSE(decode_receipt(text, "deep.toml", diag).has_value());
    EXPECT_TRUE(diag.has_errors());
  }
}

}  // namespace
}  // namespace tsr
