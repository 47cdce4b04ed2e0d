// A single pass over raw TOML text (TOML 1.0) that tracks only what nests:
// keys and their parts, table headers, arrays and inline tables, and skips
// strings and comments so that brackets inside them do not count, and the
// paths of arrays of tables, whose elements add a level to any header that
// goes through them. It recurses nowhere: any input up to the receipt size
// limit is scanned in one pass.
#include "document/toml_limits.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace tsr {
namespace {

bool is_bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hex_value(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

// A basic string's value, so that "a", 'a', a and "\u0061" name one key.
// Escapes toml++ would refuse are kept as written: it stops at them anyway.
std::string unescaped(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 == raw.size()) {
      out += raw[i];
      continue;
    }
    const char e = raw[i + 1];
    const size_t digits = e == 'u' ? 4 : e == 'U' ? 8 : 0;
    if (digits && i + 2 + digits <= raw.size()) {
      uint32_t cp = 0;
      bool hex = true;
      for (size_t k = 0; k < digits; ++k) {
        const int v = hex_value(raw[i + 2 + k]);
        hex = hex && v >= 0;
        cp = cp * 16 + static_cast<uint32_t>(v < 0 ? 0 : v);
      }
      if (hex && cp <= 0x10FFFF) {
        append_utf8(cp, out);
        i += 1 + digits;
        continue;
      }
    }
    const char* simple = e == 'b' ? "\b" : e == 't' ? "\t" : e == 'n' ? "\n" : e == 'f' ? "\f" : e == 'r' ? "\r" : nullptr;
    if (simple) out += simple;
    else out += e;   // \" and \\ (anything else: toml++ refuses the file)
    ++i;
  }
  return out;
}

std::string deeper_than_toml_limit_message() {
  return "TOML nested more than " + std::to_string(kMaxTomlDepth) + " levels deep";
}

class ShapeScanner {
 public:
  explicit ShapeScanner(const std::string& text) : text_(text) {}

  // The offset and message of the first limit the text goes over, if any.
  std::optional<std::pair<size_t, std::string>> scan() {
    int table_level = 0;   // the level of the table that key/value lines fill
    while (!error_) {
      skip_space_and_comments();
      if (pos_ >= text_.size()) break;
      if (text_[pos_] == '[') {
        const size_t at = pos_;
        const bool array_of_tables = peek(1) == '[';
        pos_ += array_of_tables ? 2 : 1;
        std::vector<std::string> path;
        key("table header", &path);
        if (error_) break;
        const int level = header_level(path, array_of_tables);
        if (level > kMaxTomlDepth) fail(at, deeper_than_toml_limit_message());
        table_level = level;
        skip_line();   // the closing bracket and a comment; anything else is toml++'s to report
        continue;
      }
      const Key k = key("dotted key");
      if (error_) break;
      if (k.parts == 0) {
        skip_line();
        continue;
      }
      if (!check_key_depth(k, table_level)) break;
      skip_blanks();
      if (peek() == '=') ++pos_;
      if (!value(table_level + k.parts)) break;
      skip_line();
    }
    return error_;
  }

 private:
  struct Key {
    size_t begin = 0;
    int parts = 0;
  };

  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  void skip_blanks() {
    while (peek() == ' ' || peek() == '\t') ++pos_;
  }

  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }

  void skip_space_and_comments() {
    for (;;) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') ++pos_;
      else if (c == '#') skip_line();
      else return;
    }
  }

  // At a quote: a basic ("..."), literal ('...') or multi-line string.
  void skip_string() {
    const char quote = text_[pos_];
    if (peek(1) == quote && peek(2) == quote) {
      pos_ += 3;
      while (pos_ < text_.size()) {
        if (quote == '"' && text_[pos_] == '\\') {
          pos_ += 2;
          continue;
        }
        size_t run = 0;
        while (peek(run) == quote) ++run;
        // Up to two quotes may stand right before the closing three.
        if (run >= 3) {
          pos_ += std::min<size_t>(run, 5);
          return;
        }
        pos_ += run == 0 ? 1 : run;
      }
      return;
    }
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n') {
      const char c = text_[pos_++];
      if (c == quote) return;
      if (quote == '"' && c == '\\' && pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    }
  }

  // A number, boolean or date-time: up to what ends a value.
  void skip_scalar() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ',' || c == ']' || c == '}' || c == '#' || c == '\n') return;
      ++pos_;
    }
  }

  // Each part of a header is a table one level down, and so is the element
  // of an array of tables on the way: after [[a]], [a.b] puts b at level 3
  // (a, its last element, b); [[a.b]] is an array at the header's level
  // holding a table one further.
  int header_level(const std::vector<std::string>& path, bool array_of_tables) {
    int level = 0;
    std::vector<std::string> prefix;
    for (size_t i = 0; i < path.size(); ++i) {
      prefix.push_back(path[i]);
      ++level;
      if (i + 1 < path.size() && arrays_of_tables_.count(prefix)) ++level;
    }
    if (array_of_tables) {
      arrays_of_tables_.insert(path);
      ++level;
    }
    return level;
  }

  // A bare, quoted or dotted key; parts == 0 where none starts here. With
  // `names`, each part's name as toml++ reads it.
  Key key(const char* what, std::vector<std::string>* names = nullptr) {
    skip_blanks();
    Key k{pos_, 0};
    for (;;) {
      skip_blanks();
      const size_t begin = pos_;
      size_t length = 0;
      const char quote = peek();
      if (quote == '"' || quote == '\'') {
        skip_string();
        length = pos_ - begin >= 2 ? pos_ - begin - 2 : 0;
        if (names) {
          const std::string_view raw = std::string_view(text_).substr(begin + 1, length);
          names->push_back(quote == '"' ? unescaped(raw) : std::string(raw));
        }
      } else {
        while (is_bare_key_char(peek())) ++pos_;
        length = pos_ - begin;
        if (length == 0) break;
        if (names) names->push_back(text_.substr(begin, length));
      }
      ++k.parts;
      if (length > kMaxTomlKeyBytes) {
        fail(begin, "key is " + std::to_string(length) + " bytes, over the limit of " +
                        std::to_string(kMaxTomlKeyBytes) + " bytes");
        return k;
      }
      skip_blanks();
      if (peek() != '.') break;
      ++pos_;
    }
    if (k.parts > kMaxTomlKeyParts)
      fail(k.begin, std::string(what) + " has " + std::to_string(k.parts) + " parts, over the limit of " +
                        std::to_string(kMaxTomlKeyParts));
    return k;
  }

  // a.b.c = ... in a table at `table_level` makes tables a and b one and two levels below it.
  bool check_key_depth(const Key& k, int table_level) {
    if (table_level + k.parts - 1 > kMaxTomlDepth) return fail(k.begin, deeper_than_toml_limit_message());
    return true;
  }

  // One value whose array or inline table would sit at `level`, with
  // everything nested in it. False when a limit is exceeded.
  bool value(int level) {
    std::vector<std::pair<char, int>> open;   // '[' or '{' and the level it opened at
    enum class Want { value, key, separator } want = Want::value;
    for (;;) {
      if (open.empty() && want == Want::separator) return true;
      if (open.empty()) skip_blanks();
      else skip_space_and_comments();
      if (pos_ >= text_.size()) return true;
      const char c = text_[pos_];
      if (want == Want::value) {
        if (c == '[' || c == '{') {
          if (level > kMaxTomlDepth) return fail(pos_, deeper_than_toml_limit_message());
          open.emplace_back(c, level);
          ++pos_;
          if (c == '[') ++level;
          else want = Want::key;
          continue;
        }
        if (c == ']' && !open.empty() && open.back().first == '[') {   // [] or a trailing comma
          ++pos_;
          open.pop_back();
          want = Want::separator;
          continue;
        }
        if (c == '\n' || c == '#') return true;   // no value: toml++ reports it
        if (c == '"' || c == '\'') skip_string();
        else if (c == ',' || c == '}' || c == ']') ++pos_;   // toml++ stops here
        else skip_scalar();
        want = Want::separator;
      } else if (want == Want::key) {
        if (c == '}') {
          ++pos_;
          open.pop_back();
          want = Want::separator;
          continue;
        }
        const Key k = key("dotted key");
        if (error_) return false;
        if (k.parts == 0) {   // toml++ stops here
          ++pos_;
          continue;
        }
        const int table_level = open.back().second;
        if (!check_key_depth(k, table_level)) return false;
        skip_blanks();
        if (peek() == '=') ++pos_;
        level = table_level + k.parts;
        want = Want::value;
      } else {
        const auto [kind, at] = open.back();
        ++pos_;
        if (c == ',') {
          if (kind == '[') {
            level = at + 1;
            want = Want::value;
          } else {
            want = Want::key;
          }
        } else if ((c == ']' && kind == '[') || (c == '}' && kind == '{')) {
          open.pop_back();
        }
        // Anything else is a syntax error that toml++ stops at.
      }
    }
  }

  bool fail(size_t at, std::string message) {
    if (!error_) error_ = std::make_pair(at, std::move(message));
    return false;
  }

  const std::string& text_;
  size_t pos_ = 0;
  std::set<std::vector<std::string>> arrays_of_tables_;   // the paths of [[...]] headers seen
  std::optional<std::pair<size_t, std::string>> error_;
};

SourceLocation location_at(const std::string& text, size_t offset, const std::string& file) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return SourceLocation{file, line, static_cast<int>(offset - line_start + 1)};
}

}  // namespace

bool check_toml_shape(const std::string& text, const std::string& file, DiagnosticEngine& diag) {
  const std::optional<std::pair<size_t, std::string>> over = ShapeScanner(text).scan();
  if (!over) return true;
  diag.error(location_at(text, over->first, file), over->second);
  return false;
}

}  // namespace tsr
