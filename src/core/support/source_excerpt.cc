#include "support/source_excerpt.h"

#include <algorithm>
#include <cstdio>

namespace tsr {
namespace {

constexpr std::string_view kCut = "...";

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// Moves a cut point back onto the start of a UTF-8 sequence.
size_t to_char_start(std::string_view s, size_t at) {
  while (at > 0 && at < s.size() && is_utf8_continuation(s[at])) --at;
  return at;
}

}  // namespace

std::string render_source_excerpt(std::string_view line, int column) {
  // The window: whole line if short, else kMaxEchoedLineBytes around the column.
  const size_t caret = column > 0 ? std::min(static_cast<size_t>(column - 1), line.size()) : 0;
  size_t begin = 0, end = line.size();
  if (line.size() > kMaxEchoedLineBytes) {
    begin = caret > kMaxEchoedLineBytes / 2 ? caret - kMaxEchoedLineBytes / 2 : 0;
    end = std::min(line.size(), begin + kMaxEchoedLineBytes);
    begin = to_char_start(line, end - begin < kMaxEchoedLineBytes ? end - kMaxEchoedLineBytes : begin);
    end = to_char_start(line, end);
  }
  std::string out;
  std::string pad;
  if (begin > 0) {
    out += kCut;
    pad.append(kCut.size(), ' ');
  }
  for (size_t i = begin; i < end; ++i) {
    const char c = line[i];
    // Tabs stay so the caret lines up in a terminal; other control bytes
    // would move the cursor or change colours, so they print as '?'.
    out += c == '\t' || !is_control(c) ? c : '?';
    if (i < caret && !is_utf8_continuation(c)) pad += c == '\t' ? '\t' : ' ';
  }
  if (end < line.size()) out += kCut;
  out += '\n';
  if (column > 0) out += pad + "^\n";
  return out;
}

std::string printable_message(std::string_view message) {
  std::string shortened;
  if (message.size() > kMaxMessageBytes) {
    const size_t head = to_char_start(message, kMaxMessageBytes / 2);
    const size_t tail = to_char_start(message, message.size() - (kMaxMessageBytes / 2 - kCut.size()));
    shortened = std::string(message.substr(0, head)) + std::string(kCut) + std::string(message.substr(tail));
    message = shortened;
  }
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    if (!is_control(c)) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

}  // namespace tsr
