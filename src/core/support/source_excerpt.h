// The source line and caret under a diagnostic, safe to print for any input:
// a long line is cut to a window around the column (clang does the same for
// its terminal width), control characters never reach the terminal, and the
// caret stays under the byte the column names even after multi-byte UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tsr {

// Echoed source lines longer than this are shown as a window of this many
// bytes around the column, with "..." where text was cut (docs/limits.md).
inline constexpr size_t kMaxEchoedLineBytes = 160;

// Messages longer than this keep their start and end around a "..." (a
// message may quote a user's 1 MB scalar; docs/limits.md).
inline constexpr size_t kMaxMessageBytes = 512;

// "LINE\n" and, when `column` > 0 (1-based byte column), "   ^\n".
std::string render_source_excerpt(std::string_view line, int column);

// `message` shortened to kMaxMessageBytes and with control characters
// written as escapes (\n, \t, \x1b), so a diagnostic stays one line.
std::string printable_message(std::string_view message);

}  // namespace tsr
