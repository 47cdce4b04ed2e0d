// Limits on the shape of a TOML document, checked on the raw text before
// toml++ parses it (docs/limits.md, "Receipt files"). toml++ bounds nested
// arrays and inline tables, but not the tables that a dotted key or a table
// header creates: a 30,000-part key parses, and the tree it gives overflows
// the stack of anything that walks it recursively. A receipt nests three
// levels (a table, trial_shapes, one trial) and its longest key is a few
// words, so these bounds are far above any real one.
#pragma once

#include <cstddef>
#include <string>

#include "support/diagnostics.h"

namespace tsr {

inline constexpr int kMaxTomlDepth = 32;          // nested tables, arrays and inline tables
inline constexpr int kMaxTomlKeyParts = 32;       // parts of one dotted key or table header
inline constexpr size_t kMaxTomlKeyBytes = 128;   // one part of a key, as written (quotes excluded)

// Scans `text` as TOML without building anything and reports the first place
// it goes over a limit above, as `file:line:col: error: ...`. Returns false
// then. Text that is not valid TOML is left for toml++ to report: the scan
// never stops early on it, so nothing past a syntax error the scan does not
// understand can hide a deeper nest from toml++.
bool check_toml_shape(const std::string& text, const std::string& file, DiagnosticEngine& diag);

}  // namespace tsr
