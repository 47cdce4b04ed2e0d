// The TOML shape limits (src/core/document/toml_limits.h, docs/limits.md): nesting,
// parts per key and key length are checked on the raw text before toml++
// parses it. The 30,000-part inputs are generated here rather than checked
// in (60 KB each); before the check they overflowed the stack (SIGSEGV) while
// the parsed tree was walked. The small golden cases are in tests/bad_receipts/.
#include <gtest/gtest.h>

#include <string>

#include "document/toml_document.h"
#include "document/toml_limits.h"
#include "receipts/receipt.h"
#include "receipts/receipt_limits.h"

namespace tsr {
namespace {

std::string dotted(int parts) {
  std::string key = "a";
  for (int i = 1; i < parts; ++i) key += ".a";
  return key;
}

std::string repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// What decode_receipt says, first line only (the echoed line and caret follow).
std::string first_receipt_error(const std::string& text) {
  DiagnosticEngine diag;
  EXPECT_FALSE(decode_receipt(text, "r.toml", diag).has_value());
  const std::string all = diag.render();
  return all.substr(0, all.find('\n'));
}

bool shape_ok(const std::string& text, std::string* rendered = nullptr) {
  DiagnosticEngine diag;
  diag.add_source("t.toml", text);
  const bool ok = check_toml_shape(text, "t.toml", diag);
  if (rendered) *rendered = diag.render();
  EXPECT_EQ(ok, !diag.has_errors());
  return ok;
}

TEST(TomlLimits, ThirtyThousandPartTableHeaderIsRefusedBeforeToml) {
  const std::string text = "[" + dotted(30000) + "]\n";
  ASSERT_LE(text.size(), kMaxReceiptFileBytes);   // the size limit alone does not stop it
  EXPECT_EQ(first_receipt_error(text), "r.toml:1:2: error: table header has 30000 parts, over the limit of 32");
}

TEST(TomlLimits, ThirtyThousandPartDottedKeyIsRefusedBeforeToml) {
  const std::string text = "format_version = 1\n" + dotted(30000) + " = 1\n";
  ASSERT_LE(text.size(), kMaxReceiptFileBytes);
  EXPECT_EQ(first_receipt_error(text), "r.toml:2:1: error: dotted key has 30000 parts, over the limit of 32");
}

TEST(TomlLimits, ThirtyThousandPartKeyInAnInlineTableIsRefused) {
  EXPECT_EQ(first_receipt_error("x = { " + dotted(30000) + " = 1 }\n"),
            "r.toml:1:7: error: dotted key has 30000 parts, over the limit of 32");
}

TEST(TomlLimits, DepthFromKeysAndContainersTogether) {
  // 16 header levels + 16 key parts: the scalar sits at 32 tables, the limit.
  EXPECT_TRUE(shape_ok("[" + dotted(16) + "]\n" + dotted(17) + " = 1\n"));
  std::string rendered;
  EXPECT_FALSE(shape_ok("[" + dotted(16) + "]\n" + dotted(18) + " = 1\n", &rendered));
  EXPECT_EQ(rendered.substr(0, rendered.find('\n')), "t.toml:2:1: error: TOML nested more than 32 levels deep");
  // [[31 parts]]: the array at 31, its table at 32; one more part goes over.
  EXPECT_TRUE(shape_ok("[[" + dotted(31) + "]]\nx = 1\n"));
  EXPECT_FALSE(shape_ok("[[" + dotted(32) + "]]\nx = 1\n"));
  // Each array of tables on a header's path adds its element's level, however
  // the part is spelled; libFuzzer found the scan counting parts only.
  EXPECT_TRUE(shape_ok("[[" + dotted(15) + "]]\n[[" + dotted(30) + "]]\n"));
  EXPECT_FALSE(shape_ok("[[" + dotted(15) + "]]\n[[" + dotted(31) + "]]\n", &rendered));
  EXPECT_EQ(rendered.substr(0, rendered.find('\n')), "t.toml:2:1: error: TOML nested more than 32 levels deep");
  EXPECT_TRUE(shape_ok("[[a]]\n[[\"a\".'a'.\"\\u0061\"]]\n[" + dotted(30) + "]\n"));   // 32 levels
  EXPECT_FALSE(shape_ok("[[a]]\n[[\"a\".'a'.\"\\u0061\"]]\n[" + dotted(31) + "]\n"));
  EXPECT_TRUE(shape_ok("[[a]]\n[[b.a]]\n[" + dotted(31) + "]\n"));
  // An array of 32 nested arrays under a top-level key: levels 1 to 32.
  EXPECT_TRUE(shape_ok("x = " + repeated("[", 32) + repeated("]", 32) + "\n"));
  EXPECT_FALSE(shape_ok("x = " + repeated("[", 33) + repeated("]", 33) + "\n", &rendered));
  EXPECT_EQ(rendered.substr(0, rendered.find('\n')), "t.toml:1:37: error: TOML nested more than 32 levels deep");
  // Inline tables: each brace a level, each part of a key inside one too.
  EXPECT_TRUE(shape_ok("x = " + repeated("{ a = ", 32) + "1" + repeated(" }", 32) + "\n"));
  EXPECT_FALSE(shape_ok("x = " + repeated("{ a = ", 33) + "1" + repeated(" }", 33) + "\n"));
  // Arrays after a comma start again at their own level.
  EXPECT_TRUE(shape_ok("x = [" + repeated("[[[[[[[[[[]]]]]]]]]], ", 100) + "]\n"));
}

TEST(TomlLimits, StringsAndCommentsDoNotCount) {
  const std::string brackets = repeated("[", 100) + repeated("{", 100);
  EXPECT_TRUE(shape_ok("a = \"" + brackets + "\\\" " + brackets + "\"\n"));
  EXPECT_TRUE(shape_ok("a = '" + brackets + "\\'\n"));
  EXPECT_TRUE(shape_ok("a = \"\"\"\n" + brackets + "\n\\\"\"\"" + brackets + "\"\"\"\"\"\n"));
  EXPECT_TRUE(shape_ok("a = '''\n" + brackets + "\n''" + brackets + "'''''\n"));
  EXPECT_TRUE(shape_ok("# " + brackets + "\na = 1 # " + brackets + "\nb = [ # " + brackets + "\n 1, # ]]]\n]\n"));
  // A quoted part with dots is one part, and its length is its text's.
  EXPECT_TRUE(shape_ok("\"" + dotted(40) + "\" = 1\n'" + dotted(40) + "'.b = 2\n"));
  EXPECT_FALSE(shape_ok("'" + std::string(kMaxTomlKeyBytes + 1, 'k') + "' = 1\n"));
  EXPECT_TRUE(shape_ok("'" + std::string(kMaxTomlKeyBytes, 'k') + "' = 1\n"));
  EXPECT_TRUE(shape_ok("a = 1979-05-27 07:32:00Z\nb = [1979-05-27 07:32:00Z, 1.5e3, inf, true]\n"));
}

TEST(TomlLimits, WhatPassesTheScanStillReachesToml) {
  // The scan only bounds the shape; toml++ still reports a syntax error.
  DiagnosticEngine diag;
  EXPECT_FALSE(parse_toml_document("a = [1, 2\nb = 1\n", "t.toml", diag));
  EXPECT_NE(diag.render().find("t.toml:2:"), std::string::npos) << diag.render();
  DiagnosticEngine at_limit;
  std::optional<DocNode> doc = parse_toml_document("[" + dotted(16) + "]\n" + dotted(17) + " = 1\n", "t.toml", at_limit);
  ASSERT_TRUE(doc) << at_limit.render();
  int depth = 0;
  for (const DocNode* n = &*doc; n->is_map(); n = &n->entries.front().value) ++depth;
  EXPECT_EQ(depth, 1 + 32);   // the root and 32 tables
}

}  // namespace
}  // namespace tsr
