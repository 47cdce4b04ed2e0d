// Parses exactly one YAML document into the document tree (document_node.h),
// within the limits of yaml_limits.h, turning every yaml-cpp failure into a
// located diagnostic; yaml-cpp stays behind this boundary. Guards against
// yaml-cpp 0.7's endless empty documents on a stray flow token (e.g. a
// top-level ','), which LoadAll turns into unbounded memory use.
#pragma once

#include <optional>
#include <string>

#include "document/document_node.h"
#include "support/diagnostics.h"

namespace tsr {

std::optional<DocNode> parse_yaml_document(const std::string& text, const std::string& file,
                                           DiagnosticEngine& diag);

}  // namespace tsr
