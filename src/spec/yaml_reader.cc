#include "spec/yaml_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace tsr {

SourceLocation location_of(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1};
}

bool is_c_identifier(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::optional<int64_t> parse_int(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  for (size_t j = i; j < text.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(text[j]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<double> parse_finite_double(const std::string& text) {
  if (text.empty()) return std::nullopt;
  // Reject hex floats, inf and nan spellings: only decimal numbers are numbers here.
  for (char c : text)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

const char* node_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "nothing";
    default: return "an undefined value";
  }
}

MapReader::MapReader(const YAML::Node& map, std::string file, std::string what, DiagnosticEngine& diag)
    : map_(map), file_(std::move(file)), what_(std::move(what)), diag_(diag) {}

void MapReader::error(const YAML::Node& at, std::string message) const {
  SourceLocation loc = location_of(file_, at);
  if (loc.line == 0) loc = location();
  diag_.error(loc, std::move(message));
}

void MapReader::error_at_key(const std::string& key, std::string message) const {
  YAML::Node k = key_node(key);
  if (k.IsDefined()) error(k, std::move(message));
  else error(map_, std::move(message));
}

YAML::Node MapReader::key_node(const std::string& key) const {
  for (auto it = map_.begin(); it != map_.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  return YAML::Node(YAML::NodeType::Undefined);
}

bool MapReader::has(const std::string& key) const { return key_node(key).IsDefined(); }

YAML::Node MapReader::get(const std::string& key) const {
  for (auto it = map_.begin(); it != map_.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node MapReader::require(const std::string& key) const {
  YAML::Node v = get(key);
  if (!has(key)) error(map_, "missing required key '" + key + "' in " + what_);
  return v;
}

std::optional<std::string> MapReader::scalar(const YAML::Node& value, const std::string& key) const {
  if (!value.IsScalar()) {
    error(value, "expected a scalar for '" + key + "', got " + node_kind(value));
    return std::nullopt;
  }
  return value.Scalar();
}

std::optional<std::string> MapReader::required_string(const std::string& key) const {
  if (!has(key)) { require(key); return std::nullopt; }
  return scalar(get(key), key);
}

std::optional<int64_t> MapReader::required_int(const std::string& key) const {
  std::optional<std::string> s = required_string(key);
  if (!s) return std::nullopt;
  std::optional<int64_t> v = parse_int(*s);
  if (!v) error(get(key), "expected an integer for '" + key + "', got '" + *s + "'");
  return v;
}

std::optional<double> MapReader::number(const std::string& key, bool required) const {
  if (!has(key)) {
    if (required) require(key);
    return std::nullopt;
  }
  std::optional<std::string> s = scalar(get(key), key);
  if (!s) return std::nullopt;
  std::optional<double> v = parse_finite_double(*s);
  if (!v) error(get(key), "expected a finite number for '" + key + "', got '" + *s + "'");
  return v;
}

std::optional<bool> MapReader::required_bool(const std::string& key) const {
  std::optional<std::string> s = required_string(key);
  if (!s) return std::nullopt;
  if (*s == "true") return true;
  if (*s == "false") return false;
  error(get(key), "expected true or false for '" + key + "', got '" + *s + "'");
  return std::nullopt;
}

std::optional<std::string> MapReader::required_enum(const std::string& key, const std::vector<std::string>& allowed,
                                                    const std::string& noun) const {
  std::optional<std::string> s = required_string(key);
  if (!s) return std::nullopt;
  for (const std::string& a : allowed)
    if (*s == a) return s;
  error(get(key), "unknown " + (noun.empty() ? key : noun) + " '" + *s + "' (allowed: " + join(allowed) + ")");
  return std::nullopt;
}

std::optional<Dim> MapReader::dim(const YAML::Node& value, const std::string& key) const {
  std::optional<std::string> s = scalar(value, key);
  if (!s) return std::nullopt;
  if (std::optional<int64_t> v = parse_int(*s)) {
    if (*v <= 0) {
      error(value, "dimension '" + key + "' must be positive, got " + std::to_string(*v));
      return std::nullopt;
    }
    return Dim{*v, ""};
  }
  if (is_c_identifier(*s)) return Dim{0, *s};
  error(value, "dimension '" + key + "' must be a positive integer or a runtime scalar name (a C identifier), got '" +
                   *s + "'");
  return std::nullopt;
}

void MapReader::reject_if_present(const std::string& key, const std::string& why) const {
  if (has(key)) error_at_key(key, "key '" + key + "' " + why);
}

void MapReader::check_keys(const std::vector<std::string>& allowed,
                           const std::vector<std::string>& rejected_elsewhere) const {
  std::set<std::string> seen;
  for (auto it = map_.begin(); it != map_.end(); ++it) {
    if (!it->first.IsScalar()) {
      error(it->first, "keys in " + what_ + " must be plain names");
      continue;
    }
    const std::string& k = it->first.Scalar();
    if (!seen.insert(k).second) {
      error(it->first, "duplicate key '" + k + "' in " + what_);
      continue;
    }
    bool known = false;
    for (const std::string& a : allowed) known = known || a == k;
    for (const std::string& r : rejected_elsewhere) known = known || r == k;
    if (!known) error(it->first, "unknown key '" + k + "' in " + what_ + " (allowed: " + join(allowed) + ")");
  }
}

}  // namespace tsr
