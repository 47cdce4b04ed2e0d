// Identifiers a name that becomes an exported C symbol (a kernel name, the
// embed symbol) may not be: C/C++ keywords, CUDA built-ins, and the names the
// C library headers of the emitted code declare or define. One table, derived
// by tools/derive_c_identifiers.py (docs/spec-format.md, "Names").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tsr {

// Letters, digits and '_', not starting with a digit, at most 128 characters
// (docs/limits.md, "names").
bool is_c_identifier(const std::string& s);

// Why the C identifier `name` cannot be the stem of an exported C symbol
// ("it is a C++ keyword"), or nullopt when it can. Covers the table and the
// reserved prefixes ('_' reserved by C, 'tsr_'/'TSR_' the runtime stub's API).
std::optional<std::string> reserved_symbol_reason(std::string_view name);

// Every name of the table, sorted (for the generated tests).
std::vector<std::string> reserved_identifier_table();

}  // namespace tsr
