// Parses one TOML document (toml++) into the document tree
// (document_node.h); toml++ stays behind this boundary. A syntax error
// becomes a located diagnostic ("invalid TOML: ..."). Map entries are in
// source order (toml++ keeps tables sorted by key; the tree restores the
// order the file wrote them in from each key's position).
#pragma once

#include <optional>
#include <string>

#include "document/document_node.h"
#include "support/diagnostics.h"

namespace tsr {

std::optional<DocNode> parse_toml_document(const std::string& text, const std::string& file,
                                           DiagnosticEngine& diag);

}  // namespace tsr
