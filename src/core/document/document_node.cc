#include "document/document_node.h"

namespace tsr {

const char* describe_node(const DocNode& node) {
  switch (node.kind) {
    case NodeKind::map: return "a map";
    case NodeKind::list: return "a list";
    case NodeKind::null: return "nothing";
    case NodeKind::scalar: break;
  }
  switch (node.type) {
    case ScalarType::text: return "a scalar";
    case ScalarType::string: return "a string";
    case ScalarType::integer: return "an integer";
    case ScalarType::floating: return "a float";
    case ScalarType::boolean: return "a boolean";
    case ScalarType::datetime: return "a date-time";
  }
  return "a scalar";
}

}  // namespace tsr
