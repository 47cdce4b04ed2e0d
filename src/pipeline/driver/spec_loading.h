// Spec decoding with the registered targets' refusals: the core decoder
// (loader/spec_loader.h) knows no backend, so the pipeline hands it the
// registry's answers. What the CLI, the tests and the benches call.
#pragma once

#include "loader/spec_loader.h"
#include "registry/registry.h"

namespace tsr {

inline std::optional<KernelSpec> decode_spec(const std::string& text, const std::string& file, DiagnosticEngine& diag) {
  return decode_spec(text, file, diag, target_refusals());
}

inline std::vector<KernelSpec> load_specs(const std::vector<std::string>& paths, DiagnosticEngine& diag) {
  return load_specs(paths, diag, target_refusals());
}

}  // namespace tsr
