// The document layer (src/core/document/): one position-tracking tree filled by
// yaml-cpp and by toml++, and MapReader's shared diagnostics over it.
#include <gtest/gtest.h>

#include "document/map_reader.h"
#include "document/toml_document.h"
#include "document/toml_text.h"
#include "document/yaml_document.h"

namespace tsr {
namespace {

std::string at(const DocNode& n) { return std::to_string(n.location.line) + ":" + std::to_string(n.location.column); }

TEST(DocumentTree, TomlKeepsSourceOrderPositionsAndTypes) {
  DiagnosticEngine diag;
  std::optional<DocNode> doc = parse_toml_document(
      "zeta = \"s\"\nalpha = 7\n\n[table]\nf = 1.5\nb = true\nwhen = 2026-12-01T14:00:00Z\nlist = [{ y = 1, x = 2 }]\n",
      "d.toml", diag);
  ASSERT_TRUE(doc) << diag.render();
  ASSERT_TRUE(doc->is_map());
  ASSERT_EQ(doc->entries.size(), 3u);
  EXPECT_EQ(doc->entries[0].key.text, "zeta");    // toml++ sorts keys; the tree does not
  EXPECT_EQ(doc->entries[1].key.text, "alpha");
  EXPECT_EQ(doc->entries[2].key.text, "table");
  EXPECT_EQ(at(doc->entries[1].key), "2:1");
  EXPECT_EQ(at(doc->entries[1].value), "2:9");
  EXPECT_EQ(doc->entries[1].value.type, ScalarType::integer);
  EXPECT_EQ(doc->entries[1].value.text, "7");
  EXPECT_EQ(doc->entries[0].value.type, ScalarType::string);
  const DocNode& table = doc->entries[2].value;
  ASSERT_TRUE(table.is_map());
  ASSERT_EQ(table.entries.size(), 4u);
  EXPECT_EQ(table.entries[0].value.type, ScalarType::floating);
  EXPECT_EQ(table.entries[0].value.text, "1.5");
  EXPECT_EQ(table.entries[1].value.type, ScalarType::boolean);
  EXPECT_EQ(table.entries[2].value.type, ScalarType::datetime);
  EXPECT_EQ(table.entries[2].value.text, "2026-12-01T14:00:00Z");
  EXPECT_EQ(at(table.entries[2].value), "7:8");
  const DocNode& list = table.entries[3].value;
  ASSERT_TRUE(list.is_list());
  ASSERT_EQ(list.items.size(), 1u);
  EXPECT_EQ(list.items[0].entries[0].key.text, "y");
  EXPECT_EQ(list.items[0].entries[1].key.text, "x");
  EXPECT_EQ(diag.render(), "");
}

TEST(DocumentTree, TomlDateTimesHaveOneSpelling) {
  DiagnosticEngine diag;
  std::optional<DocNode> doc = parse_toml_document(
      "a = 2026-12-01 14:00:00.250+01:30\nb = 2026-12-01t14:00:00z\nc = 2026-12-01T14:00:00\nd = 2026-12-01\ne = 07:32:00\n",
      "d.toml", diag);
  ASSERT_TRUE(doc) << diag.render();
  EXPECT_EQ(doc->entries[0].value.text, "2026-12-01T14:00:00.25+01:30");
  EXPECT_EQ(doc->entries[1].value.text, "2026-12-01T14:00:00Z");
  EXPECT_EQ(doc->entries[2].value.text, "2026-12-01T14:00:00");
  EXPECT_EQ(doc->entries[3].value.text, "2026-12-01");
  EXPECT_EQ(doc->entries[4].value.text, "07:32:00");
}

TEST(DocumentTree, TomlSyntaxErrorIsLocated) {
  DiagnosticEngine diag;
  diag.add_source("d.toml", "a = 1\nb = = 2\n");
  EXPECT_FALSE(parse_toml_document("a = 1\nb = = 2\n", "d.toml", diag));
  EXPECT_EQ(diag.render(), "d.toml:2:5: error: invalid TOML value: could not determine value type\nb = = 2\n    ^\n");
}

TEST(DocumentTree, YamlKeepsOrderDuplicatesAndPositions) {
  DiagnosticEngine diag;
  std::optional<DocNode> doc = parse_yaml_document("b: 1\na: [x, 'y']\nb: {k: ~}\n", "d.yaml", diag);
  ASSERT_TRUE(doc) << diag.render();
  ASSERT_EQ(doc->entries.size(), 3u);
  EXPECT_EQ(doc->entries[0].key.text, "b");
  EXPECT_EQ(doc->entries[2].key.text, "b");
  EXPECT_EQ(at(doc->entries[1].value.items[1]), "2:8");
  EXPECT_EQ(doc->entries[1].value.items[1].text, "y");
  EXPECT_EQ(doc->entries[1].value.items[1].type, ScalarType::text);
  EXPECT_EQ(doc->entries[2].value.entries[0].value.kind, NodeKind::null);
}

TEST(DocumentTree, DescribeNamesEveryKind) {
  DocNode n;
  EXPECT_STREQ(describe_node(n), "nothing");
  n.kind = NodeKind::map;
  EXPECT_STREQ(describe_node(n), "a map");
  n.kind = NodeKind::list;
  EXPECT_STREQ(describe_node(n), "a list");
  n.kind = NodeKind::scalar;
  const std::pair<ScalarType, const char*> names[] = {
      {ScalarType::text, "a scalar"},     {ScalarType::string, "a string"},   {ScalarType::integer, "an integer"},
      {ScalarType::floating, "a float"},  {ScalarType::boolean, "a boolean"}, {ScalarType::datetime, "a date-time"}};
  for (const auto& [type, name] : names) {
    n.type = type;
    EXPECT_STREQ(describe_node(n), name);
  }
}

// The same reads say the same things for both formats; only what a value
// may be differs (YAML text is parsed, TOML types are required).
TEST(DocumentMapReader, TextAndTypedRulesShareTheirWording) {
  DiagnosticEngine diag;
  const std::string yaml = "n: '12'\nx: abc\n";
  const std::string toml = "n = \"12\"\nx = 1\n";
  diag.add_source("a.yaml", yaml);
  diag.add_source("a.toml", toml);
  std::optional<DocNode> y = parse_yaml_document(yaml, "a.yaml", diag);
  std::optional<DocNode> t = parse_toml_document(toml, "a.toml", diag);
  ASSERT_TRUE(y && t);
  MapReader ym(*y, "a.yaml", "test map", diag);
  MapReader tm(*t, "a.toml", "test map", diag, ScalarRules::typed);
  EXPECT_EQ(ym.required_int("n"), 12);
  EXPECT_FALSE(ym.required_enum("x", {"p", "q"}, "letter"));
  EXPECT_FALSE(ym.required_string("missing"));
  ym.check_keys({"n"});
  EXPECT_EQ(diag.render(),
            "a.yaml:1:1: error: missing required key 'missing' in test map\nn: '12'\n^\n"
            "a.yaml:2:1: error: unknown key 'x' in test map (allowed: n)\nx: abc\n^\n"
            "a.yaml:2:4: error: unknown letter 'abc' (allowed: p, q)\nx: abc\n   ^\n");
  EXPECT_FALSE(tm.required_int("n"));
  EXPECT_FALSE(tm.required_enum("x", {"p", "q"}, "letter"));
  EXPECT_FALSE(tm.required_string("missing"));
  tm.check_keys({"n"});
  EXPECT_EQ(diag.render().substr(diag.render().find("a.toml")),
            "a.toml:1:1: error: missing required key 'missing' in test map\nn = \"12\"\n^\n"
            "a.toml:1:5: error: expected an integer for 'n', got a string\nn = \"12\"\n    ^\n"
            "a.toml:2:1: error: unknown key 'x' in test map (allowed: n)\nx = 1\n^\n"
            "a.toml:2:5: error: expected a string for 'x', got an integer\nx = 1\n    ^\n");
}

TEST(TomlText, SpellingsAreCanonical) {
  EXPECT_EQ(toml_float(5.0), "5.0");
  EXPECT_EQ(toml_float(0.1), "0.1");
  EXPECT_EQ(toml_float(-0.0), "-0.0");
  EXPECT_EQ(toml_float(1e300), "1e+300");
  EXPECT_EQ(toml_float(1.0 / 0.0), "inf");
  EXPECT_EQ(toml_key("M"), "M");
  EXPECT_EQ(toml_key("a b"), "\"a b\"");
  EXPECT_EQ(toml_key(""), "\"\"");
  EXPECT_EQ(toml_string("a\"b\\c\x01\xc3"), "\"a\\\"b\\\\c\\u0001\\uFFFD\"");
}

}  // namespace
}  // namespace tsr
