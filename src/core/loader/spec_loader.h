// Reads spec files (or every *.yaml / *.yml in a directory), decodes each with
// its family codec and checks cross-spec rules such as unique kernel names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "spec/target_catalogue.h"
#include "support/diagnostics.h"

namespace tsr {

// Input limits (docs/limits.md): a spec is a few hundred bytes; 256 KiB
// leaves room for inline PTX bodies, and the worst such file (one flat list
// of 130,000 items) is refused in about half a second.
inline constexpr uint64_t kMaxSpecFileBytes = uint64_t{256} << 10;
inline constexpr size_t kMaxSpecFiles = 10000;   // per run, after expanding directories

// Decodes one spec from YAML text. Returns nullopt after reporting errors;
// the file's diagnostics are flushed before it returns. `refusals` says why
// a listed target cannot build the spec (the backends' target_refusals();
// driver/spec_loading.h passes it).
std::optional<KernelSpec> decode_spec(const std::string& text, const std::string& file, DiagnosticEngine& diag,
                                      const TargetRefusals& refusals);

// Expands directories (sorted, non-recursive) and decodes every file. All
// errors of all files are reported; the result holds the specs that decoded.
std::vector<KernelSpec> load_specs(const std::vector<std::string>& paths, DiagnosticEngine& diag,
                                   const TargetRefusals& refusals);

// Expands paths to the list of spec files (each directory's sorted); reports
// missing paths and unreadable directories. Empty when over kMaxSpecFiles.
std::vector<std::string> expand_spec_paths(const std::vector<std::string>& paths, DiagnosticEngine& diag);

}  // namespace tsr
