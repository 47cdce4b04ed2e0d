#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>

#include "codecs/codec.h"
#include "codecs/family_codecs.h"
#include "codecs/limits.h"

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
  // A decimal beyond the limit (or beyond int64) is an extent that is too
  // large, not a malformed name.
  const YAML::Node value = shape.get(key);
  if (value.IsScalar()) {
    const std::string& text = value.Scalar();
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    const std::optional<int64_t> v = digits ? parse_int(text) : std::nullopt;
    if (digits && (!v || *v > kMaxStaticElements)) {
      shape.error(value, "dimension '" + key + "' is " + text + ", above the limit of " +
                             std::to_string(kMaxStaticElements) + " (2^48)");
      return std::nullopt;
    }
  }
  return shape.dim(value, key);
}

std::optional<double> decode_f32_constant(const MapReader& map, const std::string& key, bool required) {
  std::optional<double> v = map.number(key, required);
  if (!v) return std::nullopt;
  if (std::fabs(*v) >= kF32RoundsToInfinity) {
    map.error(map.get(key), "'" + key + "' is " + map.get(key).Scalar() +
                                ", beyond the f32 range (largest finite f32: 3.40282347e38); kernels compute in f32");
    return std::nullopt;
  }
  return v;
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
