// libFuzzer target for the receipt decoder (toml++ parse + the closed receipt
// codec): any input must end in a receipt or in diagnostics, never a crash or
// an escaped exception. A receipt that decodes must have one canonical form:
// its written bytes decode again and write back byte for byte.
// Build with -DTESSERAC_BUILD_FUZZ=ON and clang; see tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "receipts/receipt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tsr::DiagnosticEngine diag;
  std::optional<tsr::Receipt> receipt = tsr::decode_receipt(text, "fuzz.toml", diag);
  if (!receipt && !diag.has_errors()) std::abort();   // rejected without saying why
  (void)diag.render();
  if (!receipt) return 0;
  const std::string canonical = tsr::write_receipt(*receipt);
  tsr::DiagnosticEngine again;
  std::optional<tsr::Receipt> second = tsr::decode_receipt(canonical, "fuzz.toml", again);
  if (!second || tsr::write_receipt(*second) != canonical) std::abort();
  return 0;
}
