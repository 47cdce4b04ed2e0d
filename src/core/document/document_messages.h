// The diagnostics every closed codec says, worded once so a spec and a
// receipt report an unknown key, a wrong type, a bad enum value, a missing
// key or an unknown format version the same way (STYLE.md 4: lower-case
// start, no trailing period).
#pragma once

#include <string>
#include <vector>

namespace tsr {

// "a, b, c"
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

// unknown key 'tile' in matmul spec (allowed: ...); with " (did you mean 'dtype'?)"
// before the list when one allowed name is close (support/suggest.h)
std::string unknown_key_message(const std::string& key, const std::string& where,
                                const std::vector<std::string>& allowed);
// duplicate key 'kind' in 'accuracy'
std::string duplicate_key_message(const std::string& key, const std::string& where);
// missing required key 'dtype' in matmul spec
std::string missing_key_message(const std::string& key, const std::string& where);
// expected a map for 'shape', got a list
std::string wrong_type_message(const std::string& expected, const std::string& key, const std::string& got);
// unknown dtype 'f64' (allowed: f32, f16, bf16), likewise with "did you mean"
std::string unknown_value_message(const std::string& noun, const std::string& value,
                                  const std::vector<std::string>& allowed);
// unsupported spec format version 2 (this tesserac reads version 1)
std::string unsupported_version_message(const std::string& format, long long version, int supported);

}  // namespace tsr
