// Shapes of receipt values that the writer, the decoder and the trailer
// share (docs/receipt-format.md); the hex digests' are in document/hex_values.h.
#pragma once

#include <string>

#include "document/hex_values.h"

namespace tsr {

// RFC 3339 UTC with whole seconds, written with 'T' and 'Z': "2026-12-01T14:00:00Z".
bool is_receipt_timestamp(const std::string& text);

}  // namespace tsr
