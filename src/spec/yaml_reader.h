// Typed, located access to a YAML mapping for the closed codecs. Every read
// reports through the DiagnosticEngine; nothing throws past this boundary.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "support/diagnostics.h"

namespace tsr {

SourceLocation location_of(const std::string& file, const YAML::Node& node);
bool is_c_identifier(const std::string& s);
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");
// Strict scalar parsers: the whole text must be consumed.
std::optional<int64_t> parse_int(const std::string& text);
std::optional<double> parse_finite_double(const std::string& text);

class MapReader {
 public:
  // `what` names the map in messages, e.g. "matmul spec" or "'accuracy'".
  MapReader(const YAML::Node& map, std::string file, std::string what, DiagnosticEngine& diag);

  const std::string& file() const { return file_; }
  DiagnosticEngine& diag() const { return diag_; }
  SourceLocation location() const { return location_of(file_, map_); }
  bool has(const std::string& key) const;

  // Value node of `key`, or an invalid node. Required keys report when missing.
  YAML::Node get(const std::string& key) const;
  YAML::Node require(const std::string& key) const;

  std::optional<std::string> scalar(const YAML::Node& value, const std::string& key) const;
  std::optional<std::string> required_string(const std::string& key) const;
  std::optional<int64_t> required_int(const std::string& key) const;
  std::optional<double> number(const std::string& key, bool required) const;
  std::optional<bool> required_bool(const std::string& key) const;
  // One of `allowed`, by name.
  // `noun` names the value in messages ("unknown <noun> 'x'"); default: the key.
  std::optional<std::string> required_enum(const std::string& key, const std::vector<std::string>& allowed,
                                           const std::string& noun = "") const;
  std::optional<Dim> dim(const YAML::Node& value, const std::string& key) const;

  // Reports a key that is present but does not apply, with the reason.
  void reject_if_present(const std::string& key, const std::string& why) const;

  // Reports every key not in `allowed`, naming the allowed set. Keys in
  // `rejected_elsewhere` are left to a caller that rejects them with a reason.
  void check_keys(const std::vector<std::string>& allowed,
                  const std::vector<std::string>& rejected_elsewhere = {}) const;

  void error(const YAML::Node& at, std::string message) const;
  void error_at_key(const std::string& key, std::string message) const;

 private:
  YAML::Node key_node(const std::string& key) const;
  YAML::Node map_;
  std::string file_;
  std::string what_;
  DiagnosticEngine& diag_;
};

const char* node_kind(const YAML::Node& node);

}  // namespace tsr
