// Seeded text mutations for the decoder mutation tests (SpecMutation.*,
// ReceiptMutation.*): one to four edits, each a random byte, an inserted
// token of the format, a deletion or a duplicated slice of the text itself;
// and the check both run over them.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracle/input_generator.h"
#include "support/diagnostics.h"

namespace tsr::testing {

inline std::string mutate_text(std::string text, Rng& rng, const std::vector<std::string>& tokens) {
  const int edits = 1 + static_cast<int>(rng.next() % 4);
  for (int i = 0; i < edits; ++i) {
    const size_t at = text.empty() ? 0 : rng.next() % text.size();
    switch (rng.next() % 4) {
      case 0: if (!text.empty()) text[at] = static_cast<char>(rng.next() & 0xff); break;
      case 1: text.insert(at, tokens[rng.next() % tokens.size()]); break;
      case 2: text.erase(at, 1 + rng.next() % 8); break;
      case 3: text.insert(at, text.substr(rng.next() % (text.size() + 1), 1 + rng.next() % 16)); break;
    }
  }
  return text;
}

// Decodes `rounds` mutations of every text with `decode(text, diag)`, which
// returns whether the text was accepted (and checks what it accepted). A
// rejection must carry a diagnostic naming `file`; nothing may throw. Both
// outcomes must occur, or the mutations are not exercising anything.
// TSR_MUTATION_TRACE=1 prints each case before it is decoded.
inline void expect_diagnostics_for_mutations(const std::vector<std::string>& texts, const std::vector<std::string>& tokens,
                                             uint64_t seed, int rounds, const std::string& file,
                                             const std::function<bool(const std::string&, DiagnosticEngine&)>& decode) {
  Rng rng(seed);
  int decoded = 0, rejected = 0;
  for (int round = 0; round < rounds; ++round) {
    for (const std::string& original : texts) {
      const std::string text = mutate_text(original, rng, tokens);
      if (std::getenv("TSR_MUTATION_TRACE")) std::fprintf(stderr, "=== CASE\n%s\n", text.c_str());
      DiagnosticEngine diag;
      bool accepted = false;
      ASSERT_NO_THROW(accepted = decode(text, diag)) << text;
      if (accepted) {
        EXPECT_FALSE(diag.has_errors());
        ++decoded;
      } else {
        ASSERT_TRUE(diag.has_errors()) << "rejected without a diagnostic:\n" << text;
        const std::string rendered = diag.render();
        EXPECT_EQ(rendered.rfind(file, 0), 0u) << rendered;
        EXPECT_NE(rendered.find(": error: "), std::string::npos) << rendered;
        ++rejected;
      }
    }
  }
  EXPECT_GT(decoded, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace tsr::testing
