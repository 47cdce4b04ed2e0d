// Parses exactly one YAML document, turning every yaml-cpp failure into a
// located diagnostic. Guards against yaml-cpp 0.7's endless empty documents
// on a stray flow token (e.g. a top-level ','), which LoadAll turns into
// unbounded memory use.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "support/diagnostics.h"

namespace tsr {

std::optional<YAML::Node> parse_single_document(const std::string& text, const std::string& file,
                                                DiagnosticEngine& diag);

}  // namespace tsr
