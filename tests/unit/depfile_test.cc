// Depfile escaping: exact text for every character Make and Ninja treat
// specially, and a usage error for paths neither can read back. The e2e test
// tests/e2e/depfile_special_paths.sh feeds such depfiles to make and ninja.
#include <gtest/gtest.h>

#include "driver/depfile.h"

namespace tsr {
namespace {

std::string dep_line(const std::string& path) {
  Expected<std::string> text = render_depfile("out.tfat", {path});
  if (!text) return "ERROR: " + text.error().message();
  return text->substr(std::string("out.tfat: \\\n  ").size());
}

TEST(Depfile, PlainPathsAreUnchanged) {
  Expected<std::string> text = render_depfile("k.tfat", {"specs", "specs/gemm_f32.yaml", "a+b,c@d!e~f(g)h{i}j[k]-%l.yml"});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "k.tfat: \\\n  specs \\\n  specs/gemm_f32.yaml \\\n  a+b,c@d!e~f(g)h{i}j[k]-%l.yml\n");
}

TEST(Depfile, SpaceHashColonDollarAreEscaped) {
  EXPECT_EQ(dep_line("my specs/a b.yaml"), "my\\ specs/a\\ b.yaml\n");
  EXPECT_EQ(dep_line("a#b.yaml"), "a\\#b.yaml\n");
  EXPECT_EQ(dep_line("c:/x.yaml"), "c\\:/x.yaml\n");
  EXPECT_EQ(dep_line("a$b.yaml"), "a$$b.yaml\n");
  EXPECT_EQ(dep_line("caf\xc3\xa9.yaml"), "caf\xc3\xa9.yaml\n");
}

TEST(Depfile, BackslashesBeforeASpaceOrAtTheEndAreDoubled) {
  EXPECT_EQ(dep_line("a\\b.yaml"), "a\\b.yaml\n");         // elsewhere a backslash is itself
  EXPECT_EQ(dep_line("a\\ b.yaml"), "a\\\\\\ b.yaml\n");   // 2N+1 backslashes, then the space
  EXPECT_EQ(dep_line("dir\\"), "dir\\\\\n");                // would escape the separator
}

TEST(Depfile, TheTargetIsEscapedToo) {
  Expected<std::string> text = render_depfile("out put:1.tfat", {"s.yaml"});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "out\\ put\\:1.tfat: \\\n  s.yaml\n");
}

TEST(Depfile, UnrepresentablePathsAreUsageErrors) {
  EXPECT_EQ(dep_line("a\nb.yaml"),
            "ERROR: --depfile cannot name 'a\\nb.yaml': a newline has no escape that both Make and Ninja read back");
  EXPECT_EQ(dep_line("a\tb.yaml"),
            "ERROR: --depfile cannot name 'a\\tb.yaml': a tab has no escape that both Make and Ninja read back");
  EXPECT_EQ(dep_line("a;b.yaml"),
            "ERROR: --depfile cannot name 'a;b.yaml': ';' has no escape that both Make and Ninja read back");
  EXPECT_EQ(dep_line("a=b.yaml"),
            "ERROR: --depfile cannot name 'a=b.yaml': '=' has no escape that both Make and Ninja read back");
  EXPECT_EQ(dep_line("a\\#b.yaml"), "ERROR: --depfile cannot name 'a\\#b.yaml': a backslash before '#' has no "
                                    "escape that both Make and Ninja read back");
  for (const char* bad : {"a*b", "a?b", "a|b", "a&b", "a'b", "a\"b", "a<b", "a>b", "a^b", "a`b", "a\rb"})
    EXPECT_EQ(dep_line(bad).rfind("ERROR: --depfile cannot name", 0), 0u) << bad;
  Expected<std::string> target = render_depfile("k%.tfat", {"s.yaml"});
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.error().kind(), ErrorKind::usage);
  EXPECT_EQ(target.error().message(), "--depfile cannot name 'k%.tfat': '%' has no escape that both Make and Ninja read back");
}

}  // namespace
}  // namespace tsr
