// Helpers for tests that decode specs from inline YAML text.
#pragma once

#include <optional>
#include <string>

#include "spec/spec_loader.h"
#include "support/diagnostics.h"

namespace tsr::testing {

struct Decoded {
  std::optional<KernelSpec> spec;
  std::string diagnostics;
};

inline Decoded decode(const std::string& yaml) {
  DiagnosticEngine diag;
  Decoded d;
  d.spec = decode_spec(yaml, "t.yaml", diag);
  d.diagnostics = diag.render();
  return d;
}

inline KernelSpec must_decode(const std::string& yaml) {
  Decoded d = decode(yaml);
  if (!d.spec) throw std::runtime_error("spec did not decode:\n" + d.diagnostics);
  return *d.spec;
}

}  // namespace tsr::testing
