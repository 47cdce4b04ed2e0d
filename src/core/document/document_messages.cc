#include "document/document_messages.h"

#include "support/suggest.h"

namespace tsr {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string unknown_key_message(const std::string& key, const std::string& where,
                                const std::vector<std::string>& allowed) {
  return "unknown key '" + key + "' in " + where + did_you_mean(key, allowed) + " (allowed: " + join(allowed) + ")";
}

std::string duplicate_key_message(const std::string& key, const std::string& where) {
  return "duplicate key '" + key + "' in " + where;
}

std::string missing_key_message(const std::string& key, const std::string& where) {
  return "missing required key '" + key + "' in " + where;
}

std::string wrong_type_message(const std::string& expected, const std::string& key, const std::string& got) {
  return "expected " + expected + " for '" + key + "', got " + got;
}

std::string unknown_value_message(const std::string& noun, const std::string& value,
                                  const std::vector<std::string>& allowed) {
  return "unknown " + noun + " '" + value + "'" + did_you_mean(value, allowed) + " (allowed: " + join(allowed) + ")";
}

std::string unsupported_version_message(const std::string& format, long long version, int supported) {
  return "unsupported " + format + " format version " + std::to_string(version) + " (this tesserac reads version " +
         std::to_string(supported) + ")";
}

}  // namespace tsr
