// "did you mean" (support/suggest.h): the distance, the thresholds that keep
// short words from being "corrected" into unrelated ones, and the wording.
#include <gtest/gtest.h>

#include "support/suggest.h"

namespace tsr {
namespace {

TEST(Suggest, EditDistanceCountsAnAdjacentSwapAsOneEdit) {
  EXPECT_EQ(edit_distance("build", "build"), 0u);
  EXPECT_EQ(edit_distance("biuld", "build"), 1u);   // plain Levenshtein says 2
  EXPECT_EQ(edit_distance("dtyp", "dtype"), 1u);
  EXPECT_EQ(edit_distance("dtpye", "dtype"), 1u);
  EXPECT_EQ(edit_distance("f64", "f32"), 2u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);   // optimal string alignment: no edit of a swapped pair
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, ClosestNameWithinTwoEditsAndAThirdOfTheWord) {
  const std::vector<std::string> subcommands{"help", "emit", "test", "build", "tune", "inspect", "verify",
                                             "merge", "embed", "qualify", "admit", "targets"};
  EXPECT_EQ(did_you_mean("biuld", subcommands), " (did you mean 'build'?)");
  EXPECT_EQ(did_you_mean("inpsect", subcommands), " (did you mean 'inspect'?)");
  EXPECT_EQ(did_you_mean("targest", subcommands), " (did you mean 'targets'?)");
  EXPECT_EQ(did_you_mean("qualfiy", subcommands), " (did you mean 'qualify'?)");
  EXPECT_EQ(did_you_mean("frobnicate", subcommands), "");
  // 5 letters allow one edit, 6 two, never three.
  EXPECT_EQ(did_you_mean("bxxld", subcommands), "");
  EXPECT_EQ(did_you_mean("verxxy", subcommands), " (did you mean 'verify'?)");
  EXPECT_EQ(did_you_mean("vxxxfy", subcommands), "");
  // Short words: 'f64' is two edits from f32, but that is most of the word.
  EXPECT_EQ(did_you_mean("f64", {"f32", "f16", "bf16"}), "");
  EXPECT_EQ(did_you_mean("C", {"N"}), "");
  // The first of equally close names, in the allowed list's order.
  EXPECT_EQ(did_you_mean("ab", {"ab"}), "");
  EXPECT_EQ(did_you_mean("maxx", {"max", "min"}), " (did you mean 'max'?)");
  EXPECT_EQ(did_you_mean("", {"a"}), "");
}

TEST(Suggest, LetterCaseAndStemsAreSuggestedWhateverTheLength) {
  EXPECT_EQ(did_you_mean("F32", {"f32", "f16", "bf16"}), " (did you mean 'f32'?)");
  EXPECT_EQ(did_you_mean("m", {"M", "N", "K"}), " (did you mean 'M'?)");
  EXPECT_EQ(did_you_mean("pass", {"PASS"}), " (did you mean 'PASS'?)");
  // 'gelu' is one edit from relu, but it is the stem of the two GELUs.
  const std::vector<std::string> ops{"relu", "gelu_tanh", "gelu_erf", "silu"};
  EXPECT_EQ(did_you_mean("gelu", ops), " (did you mean 'gelu_tanh' or 'gelu_erf'?)");
  EXPECT_EQ(closest_names("gelu", ops), (std::vector<std::string>{"gelu_tanh", "gelu_erf"}));
  EXPECT_EQ(did_you_mean("log", {"log_softmax", "log_a", "log_b"}),
            " (did you mean 'log_softmax', 'log_a' or 'log_b'?)");
  EXPECT_EQ(did_you_mean("gelu_", ops), "");   // a stem ends before the '_'
}

}  // namespace
}  // namespace tsr
