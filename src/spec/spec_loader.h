// Reads spec files (or every *.yaml / *.yml in a directory), decodes each with
// its family codec and checks cross-spec rules such as unique kernel names.
#pragma once

#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "support/diagnostics.h"

namespace tsr {

// Decodes one spec from YAML text. Returns nullopt after reporting errors.
std::optional<KernelSpec> decode_spec(const std::string& text, const std::string& file, DiagnosticEngine& diag);

// Expands directories (sorted, non-recursive) and decodes every file. All
// errors of all files are reported; the result holds the specs that decoded.
std::vector<KernelSpec> load_specs(const std::vector<std::string>& paths, DiagnosticEngine& diag);

// Expands paths to the sorted list of spec files; reports missing paths.
std::vector<std::string> expand_spec_paths(const std::vector<std::string>& paths, DiagnosticEngine& diag);

}  // namespace tsr
