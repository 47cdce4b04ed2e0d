#include "document/map_reader.h"

#include <set>

#include "document/scalar_text.h"

namespace tsr {

MapReader::MapReader(const DocNode& map, std::string file, std::string what, DiagnosticEngine& diag,
                     ScalarRules rules)
    : map_(map), file_(std::move(file)), what_(std::move(what)), diag_(diag), rules_(rules) {}

void MapReader::error(const DocNode* at, std::string message) const {
  SourceLocation loc = at ? at->location : location();
  if (loc.line == 0) loc = location();
  diag_.error(loc, std::move(message));
}

void MapReader::error_at_key(const std::string& key, std::string message) const {
  error(key_node(key), std::move(message));
}

const DocNode* MapReader::key_node(const std::string& key) const {
  for (const DocEntry& e : map_.entries)
    if (e.key.is_scalar() && e.key.text == key) return &e.key;
  return nullptr;
}

const DocNode* MapReader::get(const std::string& key) const {
  for (const DocEntry& e : map_.entries)
    if (e.key.is_scalar() && e.key.text == key) return &e.value;
  return nullptr;
}

const DocNode* MapReader::require(const std::string& key) const {
  const DocNode* v = get(key);
  if (!v) error(&map_, missing_key_message(key, what_));
  return v;
}

const DocNode* MapReader::map_value(const std::string& key, bool required) const {
  const DocNode* v = required ? require(key) : get(key);
  if (v && !v->is_map()) {
    error(v, wrong_type_message("a map", key, describe_node(*v)));
    return nullptr;
  }
  return v;
}

const DocNode* MapReader::list_value(const std::string& key, bool required) const {
  const DocNode* v = required ? require(key) : get(key);
  if (v && !v->is_list()) {
    error(v, wrong_type_message("a list", key, describe_node(*v)));
    return nullptr;
  }
  return v;
}

const DocNode* MapReader::typed_scalar(const DocNode& value, const std::string& key, ScalarType type,
                                       const std::string& expected) const {
  if (value.is_scalar() && value.type == type) return &value;
  error(value, wrong_type_message(expected, key, describe_node(value)));
  return nullptr;
}

std::optional<std::string> MapReader::scalar(const DocNode& value, const std::string& key) const {
  if (rules_ == ScalarRules::typed) {
    const DocNode* s = typed_scalar(value, key, ScalarType::string, "a string");
    return s ? std::optional<std::string>(s->text) : std::nullopt;
  }
  if (!value.is_scalar()) {
    error(value, wrong_type_message("a scalar", key, describe_node(value)));
    return std::nullopt;
  }
  return value.text;
}

std::optional<std::string> MapReader::required_string(const std::string& key) const {
  const DocNode* v = require(key);
  return v ? scalar(*v, key) : std::nullopt;
}

std::optional<int64_t> MapReader::integer(const DocNode& value, const std::string& key) const {
  if (rules_ == ScalarRules::typed) {
    const DocNode* s = typed_scalar(value, key, ScalarType::integer, "an integer");
    return s ? parse_int(s->text) : std::nullopt;
  }
  std::optional<std::string> s = scalar(value, key);
  if (!s) return std::nullopt;
  std::optional<int64_t> v = parse_int(*s);
  if (!v) error(value, wrong_type_message("an integer", key, "'" + *s + "'"));
  return v;
}

std::optional<int64_t> MapReader::required_int(const std::string& key) const {
  const DocNode* v = require(key);
  return v ? integer(*v, key) : std::nullopt;
}

std::optional<double> MapReader::number(const std::string& key, bool required) const {
  const DocNode* value = required ? require(key) : get(key);
  if (!value) return std::nullopt;
  std::optional<std::string> s;
  std::optional<double> v;
  if (rules_ == ScalarRules::typed) {
    // The text is the shortest spelling of toml++'s double: read back exactly, subnormals included.
    const DocNode* f = typed_scalar(*value, key, ScalarType::floating, "a float");
    if (!f) return std::nullopt;
    s = f->text;
    v = parse_shortest_double(*s);
  } else {
    s = scalar(*value, key);
    if (!s) return std::nullopt;
    v = parse_finite_double(*s);
  }
  if (!v) error(value, wrong_type_message("a finite number", key, "'" + *s + "'"));
  return v;
}

std::optional<bool> MapReader::required_bool(const std::string& key) const {
  const DocNode* value = require(key);
  if (!value) return std::nullopt;
  if (rules_ == ScalarRules::typed) {
    const DocNode* b = typed_scalar(*value, key, ScalarType::boolean, "true or false");
    return b ? std::optional<bool>(b->text == "true") : std::nullopt;
  }
  std::optional<std::string> s = scalar(*value, key);
  if (!s) return std::nullopt;
  if (*s == "true") return true;
  if (*s == "false") return false;
  error(value, wrong_type_message("true or false", key, "'" + *s + "'"));
  return std::nullopt;
}

std::optional<std::string> MapReader::required_datetime(const std::string& key) const {
  const DocNode* value = require(key);
  if (!value) return std::nullopt;
  const DocNode* d = typed_scalar(*value, key, ScalarType::datetime, "a date-time");
  return d ? std::optional<std::string>(d->text) : std::nullopt;
}

std::optional<std::string> MapReader::required_enum(const std::string& key, const std::vector<std::string>& allowed,
                                                    const std::string& noun) const {
  std::optional<std::string> s = required_string(key);
  if (!s) return std::nullopt;
  for (const std::string& a : allowed)
    if (*s == a) return s;
  error(get(key), unknown_value_message(noun.empty() ? key : noun, *s, allowed));
  return std::nullopt;
}

void MapReader::reject_if_present(const std::string& key, const std::string& why) const {
  if (has(key)) error_at_key(key, "key '" + key + "' " + why);
}

void MapReader::check_keys(const std::vector<std::string>& allowed,
                           const std::vector<std::string>& rejected_elsewhere) const {
  std::set<std::string> seen;
  for (const DocEntry& e : map_.entries) {
    if (!e.key.is_scalar()) {
      error(e.key, "keys in " + what_ + " must be plain names");
      continue;
    }
    const std::string& k = e.key.text;
    if (!seen.insert(k).second) {
      error(e.key, duplicate_key_message(k, what_));
      continue;
    }
    bool known = false;
    for (const std::string& a : allowed) known = known || a == k;
    for (const std::string& r : rejected_elsewhere) known = known || r == k;
    if (!known) error(e.key, unknown_key_message(k, what_, allowed));
  }
}

}  // namespace tsr
