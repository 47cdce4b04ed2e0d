// Builds the document tree of a parsed yaml-cpp document within the limits of
// yaml_limits.h (internal to document/yaml_document.cc).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "document/document_node.h"
#include "support/diagnostics.h"

namespace tsr {

// Reports the first limit the document exceeds and returns nullopt.
std::optional<DocNode> build_yaml_tree(const YAML::Node& root, const std::string& file, DiagnosticEngine& diag);

}  // namespace tsr
