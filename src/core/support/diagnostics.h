// Compiler-style diagnostics: `file:line:col: error: message`, the source line
// and a caret (LLVM's message rules). A phase collects every error, then the
// driver stops (mold's checkpoint()). Output is streamed file by file and
// capped per file like clang's -ferror-limit, so a hostile spec with
// thousands of errors on one long line prints a screenful, not gigabytes.
#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "support/source_location.h"

namespace tsr {

// Errors shown per file before "too many errors emitted, stopping now"
// (`--error-limit N` changes it; 0 means no limit; docs/limits.md).
inline constexpr size_t kDefaultErrorLimit = 20;

struct Diagnostic {
  SourceLocation location;
  std::string message;   // lower-case start, no trailing period
};

class DiagnosticEngine {
 public:
  // `sink` receives rendered diagnostics as they are flushed (the CLI passes
  // std::cerr); without one they are kept for render() (tests, fuzzers).
  explicit DiagnosticEngine(std::ostream* sink = nullptr, size_t error_limit = kDefaultErrorLimit)
      : sink_(sink), error_limit_(error_limit) {}

  // Registers a file's text so rendered diagnostics can show the source line.
  void add_source(const std::string& file, const std::string& text);

  void error(const SourceLocation& at, std::string message);

  // Renders the errors reported since the last flush: grouped by file in the
  // order files first appeared, each file's in source order, at most the
  // error limit per file.
  void flush();

  // Every error reported, including those the limit kept from being shown.
  size_t error_count() const { return reported_; }
  bool has_errors() const { return reported_ != 0; }

  // Flushes, then returns everything rendered so far (empty with a sink).
  std::string render();

 private:
  // Sorts pending errors and drops those past each file's limit, so memory
  // stays bounded however many errors a file produces.
  void order_and_trim_pending();
  void emit(const std::string& text);

  std::ostream* sink_;
  size_t error_limit_;
  size_t reported_ = 0;
  std::vector<Diagnostic> pending_;
  std::map<std::string, size_t> shown_per_file_;
  std::map<std::string, bool> overflowed_;   // "too many errors" already said
  std::map<std::string, std::vector<std::string>> sources_;
  std::string rendered_;
};

}  // namespace tsr
