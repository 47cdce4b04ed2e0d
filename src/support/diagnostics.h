// Compiler-style diagnostics: `file:line:col: error: message`, the source line
// and a caret (LLVM's message rules). A phase collects every error, then the
// driver stops (mold's checkpoint()).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/source_location.h"

namespace tsr {

struct Diagnostic {
  SourceLocation location;
  std::string message;   // lower-case start, no trailing period
};

class DiagnosticEngine {
 public:
  // Registers a file's text so rendered diagnostics can show the source line.
  void add_source(const std::string& file, std::string text);

  void error(const SourceLocation& at, std::string message);
  // Orders the errors reported since `first` by file position (stable).
  void sort_by_location(size_t first);
  size_t error_count() const { return errors_.size(); }
  bool has_errors() const { return !errors_.empty(); }
  const std::vector<Diagnostic>& errors() const { return errors_; }

  // All diagnostics, rendered in the order they were reported.
  std::string render() const;
  std::string render(const Diagnostic& d) const;

 private:
  std::map<std::string, std::vector<std::string>> sources_;
  std::vector<Diagnostic> errors_;
};

}  // namespace tsr
