// Golden diagnostics for malformed receipts (tests/bad_receipts/*.toml), like
// tests/bad_specs for specs: each file starts with its expected diagnostics
// as `# EXPECT: ` comment lines (at the top, so a signature trailer can stay
// the file's last line) and must be refused with exactly that text. One test
// per file: ReceiptCodecGolden.Diagnostic/<file name>.
//
// TSR_UPDATE_RECEIPT_GOLDEN=1 rewrites a file's EXPECT lines from what the
// decoder says (review the diff): the lines are written until their count,
// which shifts every line number below them, no longer changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <sstream>

#include "receipts/receipt.h"

namespace tsr {
namespace {

constexpr const char* kCaseDir = TSR_SOURCE_DIR "/tests/bad_receipts";

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kCaseDir))
    if (e.path().extension() == ".toml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string without_expectations(const std::string& text) {
  std::string body;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# EXPECT:", 0) != 0) body += line + "\n";
  if (!text.empty() && text.back() != '\n' && !body.empty()) body.pop_back();
  return body;
}

std::string decode_rendered(const std::string& text, const std::string& name) {
  DiagnosticEngine diag;
  (void)decode_receipt(text, name, diag);
  return diag.render();
}

void update_expectations(const std::string& path, const std::string& name) {
  const std::string body = without_expectations(read(path));
  std::string expect_block;
  for (int round = 0; round < 4; ++round) {
    std::string next;
    std::istringstream in(decode_rendered(expect_block + body, name));
    for (std::string line; std::getline(in, line);) next += "# EXPECT:" + (line.empty() ? "" : " " + line) + "\n";
    if (next == expect_block) break;
    expect_block = next;
  }
  std::ofstream(path, std::ios::binary) << expect_block << body;
}

std::string expected_diagnostics(const std::string& text) {
  std::string expected;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# EXPECT:", 0) != 0) continue;
    line.erase(0, 9);
    if (!line.empty() && line[0] == ' ') line.erase(0, 1);
    expected += line + "\n";
  }
  return expected;
}

class ReceiptCodecGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ReceiptCodecGolden, Diagnostic) {
  const std::string name = GetParam() + ".toml";
  const std::string path = std::string(kCaseDir) + "/" + name;
  if (std::getenv("TSR_UPDATE_RECEIPT_GOLDEN")) update_expectations(path, name);
  const std::string text = read(path);
  const std::string expected = expected_diagnostics(text);
  ASSERT_FALSE(expected.empty()) << name << " has no '# EXPECT: ' lines";
  DiagnosticEngine diag;
  const std::optional<Receipt> receipt = decode_receipt(text, name, diag);
  EXPECT_FALSE(receipt.has_value()) << name << " decoded";
  EXPECT_EQ(diag.render(), expected);
}

INSTANTIATE_TEST_SUITE_P(BadReceipts, ReceiptCodecGolden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ReceiptCodecGoldenCorpus, HasAtLeast25Cases) { EXPECT_GE(case_names().size(), 25u); }

}  // namespace
}  // namespace tsr
