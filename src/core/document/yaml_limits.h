// Limits on the shape of a parsed spec, checked while its document tree is
// built and before any codec walks it (docs/limits.md). A spec is a handful
// of small maps; these bounds are far above any real one and keep a hostile
// file from costing minutes or gigabytes: yaml-cpp shares an anchored node
// between its aliases, so a nest of aliases is tiny as text and exponential
// when walked.
#pragma once

#include <cstddef>
#include <string>

namespace tsr {

inline constexpr int kMaxYamlDepth = 32;                // nested lists/maps
inline constexpr size_t kMaxYamlEntries = 1024;         // items in one list, keys in one map
inline constexpr size_t kMaxYamlNodes = 100000;         // nodes in a spec, each use of an alias counted

std::string deeper_than_limit_message();

}  // namespace tsr
