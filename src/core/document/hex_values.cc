#include "document/hex_values.h"

#include <algorithm>

namespace tsr {

bool is_lower_hex(std::string_view s, size_t digits) {
  if (s.size() != digits) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::optional<std::string> required_sha256(const MapReader& m, const std::string& key) {
  std::optional<std::string> s = m.required_string(key);
  if (!s) return std::nullopt;
  if (is_lower_hex(*s, 64)) return s;
  m.error(m.get(key), "malformed '" + key + "': expected 64 lower-case hex digits (a SHA-256), got '" + *s + "'");
  return std::nullopt;
}

}  // namespace tsr
