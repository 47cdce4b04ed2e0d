// The signature trailer line of a signed receipt (receipt_signature.h):
//   # tesserac-signature ed25519 <key_id: 64 hex> <signature: 128 hex>
// the last line of the file, a TOML comment, so a signed receipt is still one
// TOML document. Written and recognized here only; signing and verifying
// live in receipt_signature.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "receipts/receipt.h"
#include "support/diagnostics.h"

namespace tsr {

inline constexpr std::string_view kSignatureTrailerPrefix = "# tesserac-signature ";
inline constexpr std::string_view kSignatureAlgorithm = "ed25519";

// "# tesserac-signature ed25519 KEY SIG\n".
std::string signature_trailer_line(const ReceiptSignature& signature);

// Where a file's trailer line starts (the signed payload is text[0, offset)),
// or npos when its last line is not a trailer. A file ends in a trailer when
// its last line, with or without a final newline, starts with the prefix.
size_t signature_trailer_offset(std::string_view text);

// Reads the trailer of `text`, if any. A malformed trailer, or a trailer
// line that is not the last line, is reported at its file:line:col.
std::optional<ReceiptSignature> read_signature_trailer(std::string_view text, const std::string& file,
                                                       DiagnosticEngine& diag);

}  // namespace tsr
