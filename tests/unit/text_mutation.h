// Seeded text mutations for the decoder mutation tests (SpecMutation.*,
// ReceiptMutation.*): one to four edits, each a random byte, an inserted
// token of the format, a deletion or a duplicated slice of the text itself.
#pragma once

#include <string>
#include <vector>

#include "oracle/input_generator.h"

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

}  // namespace tsr::testing
