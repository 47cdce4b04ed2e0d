#include "document/yaml_document.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <vector>

#include "document/yaml_limits.h"
#include "document/yaml_tree.h"

namespace tsr {
namespace {

// Records where each document starts; everything else is ignored.
class DocumentStarts final : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

SourceLocation at(const std::string& file, const YAML::Mark& mark) {
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

}  // namespace

std::optional<DocNode> parse_yaml_document(const std::string& text, const std::string& file,
                                           DiagnosticEngine& diag) {
  try {
    // Count documents (at most three) before building any node.
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts docs;
    while (docs.starts.size() < 3 && parser.HandleNextDocument(docs)) {
      const size_t n = docs.starts.size();
      if (n >= 2 && docs.starts[n - 1].pos == docs.starts[n - 2].pos) {
        const YAML::Mark& m = docs.starts[n - 1];
        const char c = m.pos >= 0 && static_cast<size_t>(m.pos) < text.size() ? text[static_cast<size_t>(m.pos)] : '?';
        diag.error(at(file, m), std::string("invalid YAML: unexpected '") + c + "' outside a flow collection");
        return std::nullopt;
      }
    }
    if (docs.starts.empty()) {
      diag.error(SourceLocation{file, 0, 0}, "spec file is empty (expected a map with keys tesserac, kernel, family, ...)");
      return std::nullopt;
    }
    if (docs.starts.size() > 1) {
      diag.error(at(file, docs.starts[1]), "a spec file holds exactly one YAML document, found " +
                                               std::string(docs.starts.size() > 2 ? "more than 2" : "2"));
      return std::nullopt;
    }
    return build_yaml_tree(YAML::Load(text), file, diag);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (a few hundred levels) says "bad file"; ours is lower.
    diag.error(SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, deeper_than_limit_message());
  } catch (const YAML::Exception& e) {
    diag.error(SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, "invalid YAML: " + e.msg);
  } catch (const std::exception& e) {
    diag.error(SourceLocation{file, 1, 1}, std::string("invalid YAML: ") + e.what());
  }
  return std::nullopt;
}

}  // namespace tsr
