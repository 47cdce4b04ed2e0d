// Limits on the shape of a parsed spec, checked before any codec walks it
// (docs/limits.md). A spec is a handful of small maps; these bounds are far
// above any real one and keep a hostile file from costing minutes or
// gigabytes: yaml-cpp shares an anchored node between its aliases, so a
// nest of aliases is tiny as text and exponential when walked.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

#include "support/diagnostics.h"

namespace tsr {

inline constexpr int kMaxYamlDepth = 32;                // nested lists/maps
inline constexpr size_t kMaxYamlEntries = 1024;         // items in one list, keys in one map
inline constexpr size_t kMaxYamlNodes = 100000;         // nodes in a spec, each use of an alias counted

std::string deeper_than_limit_message();

// Reports the first limit the document exceeds; false when it did.
bool check_yaml_limits(const YAML::Node& root, const std::string& file, DiagnosticEngine& diag);

}  // namespace tsr
