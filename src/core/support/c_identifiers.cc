#include "support/c_identifiers.h"

#include <algorithm>
#include <cctype>

namespace tsr {

namespace {

enum class ReservedClass { c_keyword, cpp_keyword, special, libc_function, libc_macro, cuda_builtin };

struct ReservedName {
  const char* name;
  ReservedClass cls;
};

constexpr ReservedName kTable[] = {
#include "support/c_identifiers_table.inc"
};

const char* describe(ReservedClass cls) {
  switch (cls) {
    case ReservedClass::c_keyword: return "it is a C keyword";
    case ReservedClass::cpp_keyword: return "it is a C++ keyword";
    case ReservedClass::special: return "it is the C program entry point";
    case ReservedClass::libc_function: return "it is declared by the C library headers";
    case ReservedClass::libc_macro: return "it is a macro of the C library headers or the compiler";
    case ReservedClass::cuda_builtin: return "it is a CUDA built-in";
  }
  return "it is reserved";
}

}  // namespace

bool is_c_identifier(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::optional<std::string> reserved_symbol_reason(std::string_view name) {
  const auto* end = std::end(kTable);
  const auto* it = std::lower_bound(std::begin(kTable), end, name,
                                    [](const ReservedName& r, std::string_view n) { return r.name < n; });
  if (it != end && it->name == name) return describe(it->cls);
  if (name.substr(0, 1) == "_") return "names starting with '_' are reserved by C";
  if (name.substr(0, 4) == "tsr_" || name.substr(0, 4) == "TSR_")
    return "names starting with 'tsr_' or 'TSR_' belong to the runtime stub's API";
  return std::nullopt;
}

std::vector<std::string> reserved_identifier_table() {
  std::vector<std::string> names;
  for (const ReservedName& r : kTable) names.emplace_back(r.name);
  return names;
}

}  // namespace tsr
