// Bad input must give diagnostics, never a crash or an escaped exception:
// every shipped spec and every golden bad spec, mutated many times with a
// fixed seed, goes through the decoder. tests/fuzz/spec_decoder_fuzz.cc is
// the same check under libFuzzer for longer runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/spec_loading.h"
#include "text_mutation.h"

namespace tsr {
namespace {

std::vector<std::string> corpus() {
  std::vector<std::string> texts;
  for (const char* dir : {TSR_SOURCE_DIR "/specs", TSR_SOURCE_DIR "/tests/bad_specs"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".yaml") continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      texts.push_back(ss.str());
    }
  }
  return texts;
}

TEST(SpecMutation, DecoderNeverCrashesOrThrows) {
  const std::vector<std::string> texts = corpus();
  ASSERT_GT(texts.size(), 50u);
  static const std::vector<std::string> tokens = {":", "-", "[", "]", "{", "}", "&a", "*a", "!!str", "\n", "  ", "'", "\"",
                                 "0", "-1", "1e999", "nan", "f32", "matmul", "~", "? ", ",", "#", "|", ">", "\t"};
  testing::expect_diagnostics_for_mutations(texts, tokens, 20261130, 200, "m.yaml",
                                            [](const std::string& text, DiagnosticEngine& diag) {
                                              return decode_spec(text, "m.yaml", diag).has_value();
                                            });
}

TEST(SpecMutation, DeepNestingIsAnErrorNotACrash) {
  for (const std::string& text : {std::string(100000, '['), std::string(50000, '{'),
                                  [] { std::string s; for (int i = 0; i < 20000; ++i) s += "- "; return s + "x"; }()}) {
    DiagnosticEngine diag;
    EXPECT_FALSE(decode_spec(text, "deep.yaml", diag).has_value());
    EXPECT_TRUE(diag.has_errors());
  }
}

}  // namespace
}  // namespace tsr
