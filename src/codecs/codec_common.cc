#include <memory>

#include "codecs/codec.h"
#include "codecs/family_codecs.h"

namespace tsr {

const std::vector<std::string>& common_keys() {
  static const std::vector<std::string> keys = {"tesserac", "kernel",      "family",  "dtype",
                                                "accuracy", "determinism", "targets"};
  return keys;
}

// The closed family set, registered explicitly. attention is a known family
// name without a codec yet: specs naming it are refused by name.
const FamilyCodec* find_codec(Family family) {
  static const std::unique_ptr<FamilyCodec> elementwise = make_elementwise_codec();
  static const std::unique_ptr<FamilyCodec> matmul = make_matmul_codec();
  static const std::unique_ptr<FamilyCodec> rowwise = make_rowwise_codec();
  switch (family) {
    case Family::elementwise: return elementwise.get();
    case Family::matmul: return matmul.get();
    case Family::rowwise: return rowwise.get();
    case Family::attention: return nullptr;
  }
  return nullptr;
}

std::optional<Family> family_from_name(const std::string& name) {
  for (Family f : {Family::elementwise, Family::matmul, Family::rowwise, Family::attention})
    if (name == family_name(f)) return f;
  return std::nullopt;
}

std::vector<std::string> family_names() { return {"elementwise", "matmul", "rowwise", "attention"}; }

std::optional<Dim> decode_shape_dim(const MapReader& shape, const std::string& key) {
  if (!shape.has(key)) {
    shape.require(key);
    return std::nullopt;
  }
  return shape.dim(shape.get(key), key);
}

bool decode_accumulate(const MapReader& spec_map, KernelSpec& spec) {
  std::optional<std::string> acc = spec_map.required_string("accumulate");
  if (!acc) return false;
  if (*acc != "f32") {
    spec_map.error(spec_map.get("accumulate"),
                   "unknown accumulate '" + *acc + "' (allowed: f32)");
    return false;
  }
  spec.accumulate = DType::f32;
  return true;
}

std::vector<std::string> unary_op_names() {
  std::vector<std::string> names;
  for (Op op : all_ops())
    if (!op_is_binary(op)) names.push_back(op_name(op));
  return names;
}

}  // namespace tsr
