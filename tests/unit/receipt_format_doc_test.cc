// docs/receipt-format.md's example is a receipt as `qualify` writes it: the
// decoder takes it, the writer gives back the same bytes, and its artifact
// key, route and file name have the form real receipts have.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "receipts/receipt.h"

namespace tsr {
namespace {

std::string doc_text() {
  std::ifstream in(TSR_SOURCE_DIR "/docs/receipt-format.md", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first ```toml block of the page.
std::string example_receipt(const std::string& doc) {
  const std::string open = "```toml\n";
  const size_t begin = doc.find(open);
  if (begin == std::string::npos) return "";
  const size_t end = doc.find("```", begin + open.size());
  return end == std::string::npos ? "" : doc.substr(begin + open.size(), end - begin - open.size());
}

bool is_lower_hex(const std::string& s, size_t length) {
  return s.size() == length && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(ReceiptFormatDoc, ExampleIsWhatTheWriterWrites) {
  const std::string doc = doc_text();
  const std::string example = example_receipt(doc);
  ASSERT_FALSE(example.empty()) << "no ```toml block in docs/receipt-format.md";
  DiagnosticEngine diag;
  const std::optional<Receipt> r = decode_receipt(example, "receipt-format.md", diag);
  ASSERT_TRUE(r.has_value()) << diag.render();
  EXPECT_EQ(write_receipt(*r), example) << "the example is not in the writer's canonical form";
  EXPECT_TRUE(is_lower_hex(r->artifact_key, 64)) << "Artifact::key is a SHA-256: " << r->artifact_key;
  EXPECT_EQ(r->measurement.route.rfind("libtesserart ", 0), 0u) << "qualify records who launched it: "
                                                                  << r->measurement.route;
  EXPECT_NE(doc.find("e.g. `" + receipt_file_name(*r) + "`"), std::string::npos)
      << "the page's example file name is not " << receipt_file_name(*r);
}

}  // namespace
}  // namespace tsr
