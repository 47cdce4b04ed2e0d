// Hex-digest values in the closed TOML documents (receipts, the xdna
// sidecar): their shape, and a MapReader read that reports anything else.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "document/map_reader.h"

namespace tsr {

// Exactly `digits` lower-case hex digits (a SHA-256 is 64).
bool is_lower_hex(std::string_view s, size_t digits);

// The string at `key`, required to be a SHA-256 in hex; reports otherwise
// (a receipt's hashes, an xdna sidecar's).
std::optional<std::string> required_sha256(const MapReader& m, const std::string& key);

}  // namespace tsr
