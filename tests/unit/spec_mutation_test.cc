// Bad input must give diagnostics, never a crash or an escaped exception:
// every shipped spec and every golden bad spec, mutated many times with a
// fixed seed, goes through the decoder. tests/fuzz/spec_decoder_fuzz.cc is
// the same check under libFuzzer for longer runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <cstdlib>

#include "oracle/input_generator.h"
#include "text_mutation.h"
#include "spec/spec_loader.h"

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

std::string mutate(const std::string& text, Rng& rng) {
  static const std::vector<std::string> tokens = {":", "-", "[", "]", "{", "}", "&a", "*a", "!!str", "\n", "  ", "'", "\"",
                                 "0", "-1", "1e999", "nan", "f32", "matmul", "~", "? ", ",", "#", "|", ">", "\t"};
  return testing::mutate_text(text, rng, tokens);
}

TEST(SpecMutation, DecoderNeverCrashesOrThrows) {
  const std::vector<std::string> texts = corpus();
  ASSERT_GT(texts.size(), 50u);
  Rng rng(20261130);
  int decoded = 0, rejected = 0;
  for (int round = 0; round < 200; ++round) {
    for (const std::string& original : texts) {
      const std::string text = mutate(original, rng);
      if (std::getenv("TSR_MUTATION_TRACE")) std::fprintf(stderr, "=== CASE\n%s\n", text.c_str());
      DiagnosticEngine diag;
      std::optional<KernelSpec> spec;
      ASSERT_NO_THROW(spec = decode_spec(text, "m.yaml", diag)) << text;
      if (spec) {
        EXPECT_FALSE(diag.has_errors());
        ++decoded;
      } else {
        ASSERT_TRUE(diag.has_errors()) << "rejected without a diagnostic:\n" << text;
        const std::string rendered = diag.render();
        EXPECT_EQ(rendered.rfind("m.yaml", 0), 0u) << rendered;
        EXPECT_NE(rendered.find(": error: "), std::string::npos) << rendered;
        ++rejected;
      }
    }
  }
  // Both outcomes must occur, or the mutations are not exercising anything.
  EXPECT_GT(decoded, 0);
  EXPECT_GT(rejected, 0);
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
