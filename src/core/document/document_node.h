// The one document tree both input formats are read through (DESIGN.md §1):
// yaml-cpp fills it for specs (document/yaml_document.h), toml++ for
// receipts (document/toml_document.h), and the closed codecs read only this
// tree, through MapReader (document/map_reader.h). Every node keeps the
// file:line:col it came from, so every codec error can point at its source.
#pragma once

#include <string>
#include <vector>

#include "support/source_location.h"

namespace tsr {

enum class NodeKind { map, list, scalar, null };

// What a scalar is. TOML values carry their type; YAML scalars are `text`:
// yaml-cpp resolves no tags, and the spec codecs parse the text strictly
// themselves (a quoted "1" and a plain 1 are the same spec version).
enum class ScalarType { text, string, integer, floating, boolean, datetime };

struct DocEntry;

struct DocNode {
  NodeKind kind = NodeKind::null;
  ScalarType type = ScalarType::text;   // scalars only
  SourceLocation location;              // line 0 when the parser gave none
  // A scalar's text: YAML's scalar as written (quotes removed), a TOML
  // string's value, or the canonical spelling of a TOML integer, float,
  // boolean or date-time.
  std::string text;
  std::vector<DocNode> items;           // lists, in source order
  std::vector<DocEntry> entries;        // maps, in source order (duplicates kept for the codec to report)

  bool is_map() const { return kind == NodeKind::map; }
  bool is_list() const { return kind == NodeKind::list; }
  bool is_scalar() const { return kind == NodeKind::scalar; }
  size_t size() const;
};

// A map entry. YAML keys may be any node (`[a]: 1`); codecs refuse those.
struct DocEntry {
  DocNode key;
  DocNode value;
};

// Defined once DocEntry is complete: clang with libstdc++ 12 refuses
// vector<DocEntry>::size() on the incomplete type inside DocNode.
inline size_t DocNode::size() const { return is_map() ? entries.size() : items.size(); }

// "a map", "a list", "nothing", "a scalar" (YAML text), "a string",
// "an integer", "a float", "a boolean", "a date-time": what a message says it got.
const char* describe_node(const DocNode& node);

}  // namespace tsr
