// Helpers for tests that decode specs from inline YAML text.
#pragma once

#include <optional>
#include <string>

#include "driver/spec_loading.h"
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

// A valid matmul spec's text (M, N, K = 128, 96, 64, row/row, reference_exact,
// deterministic), followed by `tail` (more top-level keys).
inline std::string matmul_yaml(const std::string& kernel, const std::string& dtype = "f32",
                               const std::string& tail = "") {
  return "tesserac: 1\nkernel: " + kernel + "\nfamily: matmul\ndtype: " + dtype +
         "\naccumulate: f32\nshape: {M: 128, N: 96, K: 64}\nlayout: {a: row, b: row}\n"
         "accuracy: {kind: reference_exact}\ndeterminism: deterministic\n" + tail;
}

}  // namespace tsr::testing
