// TOML spellings for a writer that must produce the same bytes for the same
// values (the receipt writer): one spelling per value, whatever the version
// of toml++ that later reads it.
#pragma once

#include <string>

namespace tsr {

// A basic string: "..." with '"', '\' and control characters escaped; bytes
// that are not UTF-8 become U+FFFD so the output is always valid TOML.
std::string toml_string(const std::string& value);

// The shortest round-trip decimal, always with a '.' or an exponent so TOML
// reads a float ("5.0", "0.1", "1e+300"); "nan", "inf", "-inf".
std::string toml_float(double value);

// A bare key when it is one ([A-Za-z0-9_-]+), else a quoted key.
std::string toml_key(const std::string& key);

}  // namespace tsr
