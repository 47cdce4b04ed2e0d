#include "support/diagnostics.h"

#include <algorithm>
#include <sstream>

namespace tsr {

void DiagnosticEngine::add_source(const std::string& file, std::string text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  sources_[file] = std::move(lines);
}

void DiagnosticEngine::error(const SourceLocation& at, std::string message) {
  errors_.push_back(Diagnostic{at, std::move(message)});
}

void DiagnosticEngine::sort_by_location(size_t first) {
  if (first >= errors_.size()) return;
  std::stable_sort(errors_.begin() + static_cast<std::ptrdiff_t>(first), errors_.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     if (a.location.file != b.location.file) return false;
                     if (a.location.line != b.location.line) return a.location.line < b.location.line;
                     return a.location.column < b.location.column;
                   });
}

std::string DiagnosticEngine::render(const Diagnostic& d) const {
  std::string out = d.location.file;
  if (d.location.line > 0) {
    out += ":" + std::to_string(d.location.line);
    if (d.location.column > 0) out += ":" + std::to_string(d.location.column);
  }
  out += ": error: " + d.message + "\n";
  auto it = sources_.find(d.location.file);
  if (it == sources_.end() || d.location.line <= 0 ||
      d.location.line > static_cast<int>(it->second.size()))
    return out;
  const std::string& line = it->second[static_cast<size_t>(d.location.line - 1)];
  out += line + "\n";
  if (d.location.column > 0) {
    std::string pad;
    // Keep tabs so the caret lines up under the same column in a terminal.
    for (int i = 0; i < d.location.column - 1 && i < static_cast<int>(line.size()); ++i)
      pad += line[static_cast<size_t>(i)] == '\t' ? '\t' : ' ';
    out += pad + "^\n";
  }
  return out;
}

std::string DiagnosticEngine::render() const {
  std::string out;
  for (const Diagnostic& d : errors_) out += render(d);
  return out;
}

}  // namespace tsr
