// Shapes of receipt values that the writer, the decoder and the trailer
// share (docs/receipt-format.md).
#pragma once

#include <cstddef>
#include <string>
#include <optional>
#include <string_view>

#include "document/map_reader.h"

namespace tsr {

// Exactly `digits` lower-case hex digits (a SHA-256 is 64).
bool is_lower_hex(std::string_view s, size_t digits);

// The string at `key`, required to be a SHA-256 in hex; reports otherwise
// (a receipt's hashes, an xdna sidecar's).
std::optional<std::string> required_sha256(const MapReader& m, const std::string& key);

// RFC 3339 UTC with whole seconds, written with 'T' and 'Z': "2026-12-01T14:00:00Z".
bool is_receipt_timestamp(const std::string& text);

}  // namespace tsr
