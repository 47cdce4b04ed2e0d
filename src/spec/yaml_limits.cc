#include "spec/yaml_limits.h"

#include "spec/yaml_reader.h"

namespace tsr {
namespace {

class LimitWalk {
 public:
  LimitWalk(const std::string& file, DiagnosticEngine& diag) : file_(file), diag_(diag) {}

  bool visit(const YAML::Node& node, int depth) {
    // (Not a YAML::Node copy: assigning one yaml-cpp node to another rewrites the document.)
    if (depth == 2) top_level_entry_ = location_of(file_, node);
    if (++nodes_ > kMaxYamlNodes)
      return fail(top_level_entry_, "spec has more than " + std::to_string(kMaxYamlNodes) +
                            " YAML nodes (each use of an alias counts)");
    if (depth > kMaxYamlDepth)
      return fail(node, deeper_than_limit_message());
    if (node.IsSequence()) {
      if (node.size() > kMaxYamlEntries)
        return fail(node, "list has " + std::to_string(node.size()) + " items, over the limit of " +
                              std::to_string(kMaxYamlEntries));
      for (const YAML::Node& item : node)
        if (!visit(item, depth + 1)) return false;
    } else if (node.IsMap()) {
      if (node.size() > kMaxYamlEntries)
        return fail(node, "map has " + std::to_string(node.size()) + " keys, over the limit of " +
                              std::to_string(kMaxYamlEntries));
      for (auto it = node.begin(); it != node.end(); ++it)
        if (!visit(it->first, depth + 1) || !visit(it->second, depth + 1)) return false;
    }
    return true;
  }

 private:
  bool fail(const YAML::Node& at, std::string message) { return fail(location_of(file_, at), std::move(message)); }
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

bool check_yaml_limits(const YAML::Node& root, const std::string& file, DiagnosticEngine& diag) {
  return LimitWalk(file, diag).visit(root, 1);
}

}  // namespace tsr
