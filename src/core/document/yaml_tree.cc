#include "document/yaml_tree.h"

#include "document/yaml_limits.h"

namespace tsr {
namespace {

SourceLocation location_of(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, node.Mark().line + 1, node.Mark().column + 1};
}

// Copies yaml-cpp's tree node by node, counting each alias use as the nodes
// it stands for, and stops at the first limit: the copy never holds more than
// kMaxYamlNodes nodes, however large the aliases would make it.
class TreeBuilder {
 public:
  TreeBuilder(const std::string& file, DiagnosticEngine& diag) : file_(file), diag_(diag) {}

  bool build(const YAML::Node& node, int depth, DocNode& out) {
    // (Not a YAML::Node copy: assigning one yaml-cpp node to another rewrites the document.)
    if (depth == 2) top_level_entry_ = location_of(file_, node);
    if (++nodes_ > kMaxYamlNodes)
      return fail(top_level_entry_, "spec has more than " + std::to_string(kMaxYamlNodes) +
                                        " YAML nodes (each use of an alias counts)");
    if (depth > kMaxYamlDepth) return fail(location_of(file_, node), deeper_than_limit_message());
    out.location = location_of(file_, node);
    if (node.IsSequence()) {
      if (node.size() > kMaxYamlEntries)
        return fail(out.location, "list has " + std::to_string(node.size()) + " items, over the limit of " +
                                      std::to_string(kMaxYamlEntries));
      out.kind = NodeKind::list;
      for (const YAML::Node& item : node)
        if (!build(item, depth + 1, out.items.emplace_back())) return false;
    } else if (node.IsMap()) {
      if (node.size() > kMaxYamlEntries)
        return fail(out.location, "map has " + std::to_string(node.size()) + " keys, over the limit of " +
                                      std::to_string(kMaxYamlEntries));
      out.kind = NodeKind::map;
      for (auto it = node.begin(); it != node.end(); ++it) {
        DocEntry& entry = out.entries.emplace_back();
        if (!build(it->first, depth + 1, entry.key) || !build(it->second, depth + 1, entry.value)) return false;
      }
    } else if (node.IsScalar()) {
      out.kind = NodeKind::scalar;
      out.type = ScalarType::text;
      out.text = node.Scalar();
    }
    return true;
  }

 private:
  bool fail(SourceLocation loc, std::string message) {
    if (loc.line == 0) loc = SourceLocation{file_, 1, 1};
    diag_.error(loc, std::move(message));
    return false;
  }

  const std::string& file_;
  DiagnosticEngine& diag_;
  size_t nodes_ = 0;
  SourceLocation top_level_entry_;   // where a node-count error points: the entry that holds the bulk
};

}  // namespace

std::string deeper_than_limit_message() {
  return "YAML nested more than " + std::to_string(kMaxYamlDepth) + " levels deep";
}

std::optional<DocNode> build_yaml_tree(const YAML::Node& root, const std::string& file, DiagnosticEngine& diag) {
  DocNode tree;
  if (!TreeBuilder(file, diag).build(root, 1, tree)) return std::nullopt;
  return tree;
}

}  // namespace tsr
