#include "receipts/receipt_trailer.h"

#include <algorithm>

#include "receipts/receipt_rules.h"

namespace tsr {
namespace {

constexpr size_t kKeyIdHexDigits = 64;       // SHA-256 of the raw public key
constexpr size_t kSignatureHexDigits = 128;  // an Ed25519 signature is 64 bytes

int line_number_at(std::string_view text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

std::string signature_trailer_line(const ReceiptSignature& signature) {
  return std::string(kSignatureTrailerPrefix) + std::string(kSignatureAlgorithm) + " " + signature.key_id + " " +
         signature.signature_hex + "\n";
}

size_t signature_trailer_offset(std::string_view text) {
  std::string_view body = text;
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  const size_t newline = body.rfind('\n');
  const size_t start = newline == std::string_view::npos ? 0 : newline + 1;
  return body.substr(start).rfind(kSignatureTrailerPrefix, 0) == 0 ? start : std::string_view::npos;
}

std::optional<ReceiptSignature> read_signature_trailer(std::string_view text, const std::string& file,
                                                       DiagnosticEngine& diag) {
  const size_t trailer = signature_trailer_offset(text);
  // A trailer anywhere else would be signed over as part of the payload:
  // only the last line may be one.
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (at != trailer && text.substr(at, end - at).rfind(kSignatureTrailerPrefix, 0) == 0)
      diag.error(SourceLocation{file, line_number_at(text, at), 1},
                 "a signature trailer must be the last line of the receipt");
    at = end + 1;
  }
  if (trailer == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(trailer);
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  line.remove_prefix(kSignatureTrailerPrefix.size());
  const size_t s1 = line.find(' ');
  const size_t s2 = s1 == std::string_view::npos ? s1 : line.find(' ', s1 + 1);
  const std::string_view algorithm = line.substr(0, s1);
  ReceiptSignature sig;
  if (s2 != std::string_view::npos) {
    sig.key_id = std::string(line.substr(s1 + 1, s2 - s1 - 1));
    sig.signature_hex = std::string(line.substr(s2 + 1));
  }
  if (algorithm != kSignatureAlgorithm || !is_lower_hex(sig.key_id, kKeyIdHexDigits) ||
      !is_lower_hex(sig.signature_hex, kSignatureHexDigits)) {
    diag.error(SourceLocation{file, line_number_at(text, trailer), 1},
               "malformed signature trailer (expected '# tesserac-signature ed25519 <key id: 64 lower-case hex "
               "digits> <signature: 128 lower-case hex digits>')");
    return std::nullopt;
  }
  return sig;
}

}  // namespace tsr
