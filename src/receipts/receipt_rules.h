// Shapes of receipt values that the writer, the decoder and the trailer
// share (docs/receipt-format.md).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tsr {

// Exactly `digits` lower-case hex digits (a SHA-256 is 64).
bool is_lower_hex(std::string_view s, size_t digits);

// RFC 3339 UTC with whole seconds, written with 'T' and 'Z': "2026-12-01T14:00:00Z".
bool is_receipt_timestamp(const std::string& text);

}  // namespace tsr
