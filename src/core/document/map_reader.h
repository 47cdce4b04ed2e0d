// Typed, located access to one map of a document tree (document_node.h) for
// the closed codecs. Every read reports through the DiagnosticEngine, with
// the shared wording of document_messages.h; nothing throws.
//
// Two ways to read scalars, chosen by the codec: `text` reads YAML scalars
// by their text with strict parsers (a spec's `tesserac: "1"` is version 1),
// `typed` requires the TOML type a key is declared with (a receipt's
// `trials = "6"` is a string where an integer belongs, and is refused).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "document/document_messages.h"
#include "document/document_node.h"
#include "support/diagnostics.h"

namespace tsr {

enum class ScalarRules { text, typed };

class MapReader {
 public:
  // `what` names the map in messages, e.g. "matmul spec" or "'accuracy'".
  MapReader(const DocNode& map, std::string file, std::string what, DiagnosticEngine& diag,
            ScalarRules rules = ScalarRules::text);

  const std::string& file() const { return file_; }
  DiagnosticEngine& diag() const { return diag_; }
  ScalarRules rules() const { return rules_; }
  const SourceLocation& location() const { return map_.location; }
  bool has(const std::string& key) const { return key_node(key) != nullptr; }

  // Value of `key`, or nullptr. require() reports a missing key.
  const DocNode* get(const std::string& key) const;
  const DocNode* require(const std::string& key) const;
  // The value of `key` when it is a map (list), else nullptr after reporting
  // a missing key (when `required`) or the wrong type.
  const DocNode* map_value(const std::string& key, bool required) const;
  const DocNode* list_value(const std::string& key, bool required) const;

  // A scalar's text: any YAML scalar, or a TOML string.
  std::optional<std::string> scalar(const DocNode& value, const std::string& key) const;
  std::optional<std::string> required_string(const std::string& key) const;
  std::optional<int64_t> integer(const DocNode& value, const std::string& key) const;
  std::optional<int64_t> required_int(const std::string& key) const;
  // A finite decimal number (a TOML float under `typed`).
  std::optional<double> number(const std::string& key, bool required) const;
  std::optional<bool> required_bool(const std::string& key) const;
  // A TOML date-time's canonical text (typed documents only).
  std::optional<std::string> required_datetime(const std::string& key) const;
  // One of `allowed`, by name.
  // `noun` names the value in messages ("unknown <noun> 'x'"); default: the key.
  std::optional<std::string> required_enum(const std::string& key, const std::vector<std::string>& allowed,
                                           const std::string& noun = "") const;

  // Reports a key that is present but does not apply, with the reason.
  void reject_if_present(const std::string& key, const std::string& why) const;

  // Reports every key not in `allowed`, naming the allowed set. Keys in
  // `rejected_elsewhere` are left to a caller that rejects them with a reason.
  void check_keys(const std::vector<std::string>& allowed,
                  const std::vector<std::string>& rejected_elsewhere = {}) const;

  // At `at`, or at the map when `at` is null or has no position.
  void error(const DocNode* at, std::string message) const;
  void error(const DocNode& at, std::string message) const { error(&at, std::move(message)); }
  void error_at_key(const std::string& key, std::string message) const;

 private:
  const DocNode* key_node(const std::string& key) const;
  const DocNode* typed_scalar(const DocNode& value, const std::string& key, ScalarType type,
                              const std::string& expected) const;
  const DocNode& map_;
  std::string file_;
  std::string what_;
  DiagnosticEngine& diag_;
  ScalarRules rules_;
};

}  // namespace tsr
