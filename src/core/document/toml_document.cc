#include "document/toml_document.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "document/scalar_text.h"
#include "document/toml_limits.h"

namespace tsr {
namespace {

SourceLocation location_of(const std::string& file, const toml::source_region& region) {
  return SourceLocation{file, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
}

std::string two(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

std::string date_text(const toml::date& d) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", d.year, d.month, d.day);
  return buf;
}

std::string time_text(const toml::time& t) {
  std::string out = two(t.hour) + ":" + two(t.minute) + ":" + two(t.second);
  if (t.nanosecond != 0) {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%09u", static_cast<unsigned>(t.nanosecond));
    std::string f = frac;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

// RFC 3339 as TOML writes it, in one spelling: 'T', and 'Z' for a zero offset.
std::string date_time_text(const toml::date_time& dt) {
  std::string out = date_text(dt.date) + "T" + time_text(dt.time);
  if (!dt.offset) return out;
  const int minutes = dt.offset->minutes;
  if (minutes == 0) return out + "Z";
  const int m = minutes < 0 ? -minutes : minutes;
  return out + (minutes < 0 ? "-" : "+") + two(m / 60) + ":" + two(m % 60);
}

void fill_scalar(const toml::node& node, DocNode& out) {
  out.kind = NodeKind::scalar;
  if (const auto* s = node.as_string()) {
    out.type = ScalarType::string;
    out.text = s->get();
  } else if (const auto* i = node.as_integer()) {
    out.type = ScalarType::integer;
    out.text = std::to_string(i->get());
  } else if (const auto* f = node.as_floating_point()) {
    out.type = ScalarType::floating;
    out.text = shortest_double_text(f->get());
  } else if (const auto* b = node.as_boolean()) {
    out.type = ScalarType::boolean;
    out.text = b->get() ? "true" : "false";
  } else if (const auto* d = node.as_date()) {
    out.type = ScalarType::datetime;
    out.text = date_text(d->get());
  } else if (const auto* t = node.as_time()) {
    out.type = ScalarType::datetime;
    out.text = time_text(t->get());
  } else if (const auto* dt = node.as_date_time()) {
    out.type = ScalarType::datetime;
    out.text = date_time_text(dt->get());
  }
}

// Recursion is bounded by check_toml_shape (kMaxTomlDepth): toml++ limits only
// nested arrays and inline tables, not the tables of dotted keys and headers.
void build(const toml::node& node, const std::string& file, DocNode& out) {
  out.location = location_of(file, node.source());
  if (const toml::table* table = node.as_table()) {
    out.kind = NodeKind::map;
    for (const auto& [key, value] : *table) {
      DocEntry& entry = out.entries.emplace_back();
      entry.key.kind = NodeKind::scalar;
      entry.key.type = ScalarType::string;
      entry.key.text = std::string(key.str());
      entry.key.location = location_of(file, key.source());
      if (entry.key.location.line == 0) entry.key.location = location_of(file, value.source());
      build(value, file, entry.value);
    }
    std::stable_sort(out.entries.begin(), out.entries.end(), [](const DocEntry& a, const DocEntry& b) {
      return std::tie(a.key.location.line, a.key.location.column) < std::tie(b.key.location.line, b.key.location.column);
    });
  } else if (const toml::array* array = node.as_array()) {
    out.kind = NodeKind::list;
    for (const toml::node& item : *array) build(item, file, out.items.emplace_back());
  } else {
    fill_scalar(node, out);
  }
}

}  // namespace

std::optional<DocNode> parse_toml_document(const std::string& text, const std::string& file,
                                           DiagnosticEngine& diag) {
  if (!check_toml_shape(text, file, diag)) return std::nullopt;
  try {
    const toml::table root = toml::parse(text, file);
    DocNode tree;
    build(root, file, tree);
    // The root table starts at its first key, as a YAML document's root map does.
    tree.location = tree.entries.empty() ? SourceLocation{file, 1, 1} : tree.entries.front().key.location;
    return tree;
  } catch (const toml::parse_error& e) {
    SourceLocation at = location_of(file, e.source());
    if (at.line == 0) at = SourceLocation{file, 1, 1};
    // "Error while parsing date: expected ..." reads "invalid TOML date: expected ...".
    constexpr std::string_view kPrefix = "Error while parsing ";
    const std::string_view what = e.description();
    diag.error(at, what.rfind(kPrefix, 0) == 0 ? "invalid TOML " + std::string(what.substr(kPrefix.size()))
                                                : "invalid TOML: " + std::string(what));
  } catch (const std::exception& e) {
    diag.error(SourceLocation{file, 1, 1}, std::string("invalid TOML: ") + e.what());
  }
  return std::nullopt;
}

}  // namespace tsr
