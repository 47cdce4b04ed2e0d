// libFuzzer target for the spec decoder (YAML parse + closed codecs): any
// input must end in a spec or in diagnostics, never a crash or an exception.
// Build with -DTESSERAC_BUILD_FUZZ=ON and clang; see tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "identity/identity.h"
#include "driver/spec_loading.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tsr::DiagnosticEngine diag;
  std::optional<tsr::KernelSpec> spec = tsr::decode_spec(text, "fuzz.yaml", diag);
  if (!spec && !diag.has_errors()) std::abort();   // rejected without saying why
  (void)diag.render();
  if (!spec) return 0;
  // A decoded spec has one identity: decoding the same text again must agree.
  tsr::DiagnosticEngine again;
  std::optional<tsr::KernelSpec> second = tsr::decode_spec(text, "fuzz.yaml", again);
  if (!second || tsr::kernel_identity(*spec) != tsr::kernel_identity(*second)) std::abort();
  return 0;
}
