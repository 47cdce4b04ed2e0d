#include "driver/depfile.h"

#include <cctype>
#include <cstdio>

#include "support/source_excerpt.h"

namespace tsr {

namespace {

// Read back unchanged, unescaped, by GNU Make 4 and Ninja 1.11 alike. '%'
// is a pattern character in a Make target, so only prerequisites may hold it.
bool is_plain(char c, bool in_target) {
  if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) return true;
  if (c == '%') return !in_target;
  for (char p : std::string_view("+,/_.~(){}@!-[]"))
    if (c == p) return true;
  return false;
}

std::string shown(char c) {
  if (c == '\n') return "a newline";
  if (c == '\t') return "a tab";
  if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
  char hex[16];
  std::snprintf(hex, sizeof hex, "byte 0x%02x", static_cast<unsigned char>(c));
  return hex;
}

Expected<std::string> escape(const std::string& path, bool in_target) {
  auto refuse = [&](const std::string& why) -> Expected<std::string> {
    return Error(ErrorKind::usage, "--depfile cannot name '" + printable_message(path) + "': " + why +
                                       " has no escape that both Make and Ninja read back");
  };
  std::string out;
  size_t backslashes = 0;   // the run of '\' just before path[i]
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '\\') {
      ++backslashes;
      out += c;
      continue;
    }
    const size_t run = backslashes;
    backslashes = 0;
    if (c == ' ') {
      // 2N+1 backslashes and a space read back as N backslashes and a space.
      out.append(run + 1, '\\');
    } else if (c == '#' || c == ':' || c == '$') {
      if (run > 0) return refuse("a backslash before " + shown(c));
      out += c == '$' ? '$' : '\\';
    } else if (!is_plain(c, in_target)) {
      return refuse(shown(c));
    }
    out += c;
  }
  out.append(backslashes, '\\');   // a trailing backslash would escape the separator
  return out;
}

}  // namespace

Expected<std::string> render_depfile(const std::string& output, const std::vector<std::string>& inputs) {
  Expected<std::string> target = escape(output, true);
  if (!target) return target;
  std::string text = *target + ":";
  for (const std::string& in : inputs) {
    Expected<std::string> dep = escape(in, false);
    if (!dep) return dep;
    text += " \\\n  " + *dep;
  }
  return text + "\n";
}

}  // namespace tsr
