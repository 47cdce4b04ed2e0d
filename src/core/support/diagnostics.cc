#include "support/diagnostics.h"

#include <algorithm>
#include <sstream>

#include "support/source_excerpt.h"

namespace tsr {

void DiagnosticEngine::add_source(const std::string& file, const std::string& text) {
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
  ++reported_;
  pending_.push_back(Diagnostic{at, std::move(message)});
  if (error_limit_ != 0 && pending_.size() >= 4 * error_limit_ + 64) order_and_trim_pending();
}

void DiagnosticEngine::order_and_trim_pending() {
  std::map<std::string, size_t> rank;
  for (const Diagnostic& d : pending_) rank.emplace(d.location.file, rank.size());
  std::stable_sort(pending_.begin(), pending_.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    const size_t ra = rank[a.location.file], rb = rank[b.location.file];
    if (ra != rb) return ra < rb;
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.location.column < b.location.column;
  });
  if (error_limit_ == 0) return;
  // Keep what can still be shown per file, plus one that proves there is more.
  std::map<std::string, size_t> kept;
  std::vector<Diagnostic> trimmed;
  for (Diagnostic& d : pending_) {
    const size_t shown = shown_per_file_[d.location.file];
    const size_t room = shown < error_limit_ ? error_limit_ - shown : 0;
    if (kept[d.location.file]++ <= room) trimmed.push_back(std::move(d));
  }
  pending_ = std::move(trimmed);
}

void DiagnosticEngine::emit(const std::string& text) {
  if (sink_) {
    *sink_ << text;
    sink_->flush();
  } else {
    rendered_ += text;
  }
}

void DiagnosticEngine::flush() {
  order_and_trim_pending();
  for (const Diagnostic& d : pending_) {
    const std::string& file = d.location.file;
    size_t& shown = shown_per_file_[file];
    if (error_limit_ != 0 && shown >= error_limit_) {
      if (!overflowed_[file]) emit(file + ": error: too many errors emitted, stopping now (--error-limit 0 shows all)\n");
      overflowed_[file] = true;
      continue;
    }
    ++shown;
    std::string out = file;
    if (d.location.line > 0) {
      out += ":" + std::to_string(d.location.line);
      if (d.location.column > 0) out += ":" + std::to_string(d.location.column);
    }
    out += ": error: " + printable_message(d.message) + "\n";
    auto it = sources_.find(file);
    if (it != sources_.end() && d.location.line > 0 && d.location.line <= static_cast<int>(it->second.size()))
      out += render_source_excerpt(it->second[static_cast<size_t>(d.location.line - 1)], d.location.column);
    emit(out);
  }
  pending_.clear();
}

std::string DiagnosticEngine::render() {
  flush();
  return rendered_;
}

}  // namespace tsr
