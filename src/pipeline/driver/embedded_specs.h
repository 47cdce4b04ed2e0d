// Each kernel's spec text travels inside its archive, so a hardware host can
// run the oracle (which needs the spec's semantics for its reference) on the
// archive alone: `tesserac qualify ARCHIVE.tfat`. The text is stored in the
// archive metadata under `spec.<kernel>` as a JSON string (metadata values
// hold no newline; docs/archive-format.md, "Metadata keys"). Reading it back
// decodes it with the spec codecs and checks the kernel identity, so a text
// that does not describe the kernel's bytes is refused.
#pragma once

#include <map>
#include <string>

#include "spec/kernel_spec.h"
#include "support/error.h"

namespace tsr {

std::string embedded_spec_key(const std::string& kernel);   // "spec.<kernel>"

// Adds `spec`'s source text to archive metadata (nothing when it has none).
void embed_spec(const KernelSpec& spec, std::map<std::string, std::string>& metadata);

// The spec of `kernel` from archive metadata, decoded (diagnostics to stderr,
// named `<archive>:spec.<kernel>`) and checked against `identity`.
Expected<KernelSpec> embedded_spec(const std::map<std::string, std::string>& metadata, const std::string& kernel,
                                   const std::string& identity, const std::string& archive);

}  // namespace tsr
