#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>

#include "codecs/codec.h"
#include "codecs/family_codecs.h"
#include "codecs/limits.h"
#include "support/c_identifiers.h"

namespace tsr {

const std::vector<std::string>& common_keys() {
  static const std::vector<std::string> keys = {"tesserac", "kernel",      "family",  "dtype",
                                                "accuracy", "determinism", "targets", "candidates"};
  return keys;
}

// The closed family set, registered explicitly.
const FamilyCodec* find_codec(Family family) {
  static const std::unique_ptr<FamilyCodec> elementwise = make_elementwise_codec();
  static const std::unique_ptr<FamilyCodec> matmul = make_matmul_codec();
  static const std::unique_ptr<FamilyCodec> rowwise = make_rowwise_codec();
  static const std::unique_ptr<FamilyCodec> attention = make_attention_codec();
  switch (family) {
    case Family::elementwise: return elementwise.get();
    case Family::matmul: return matmul.get();
    case Family::rowwise: return rowwise.get();
    case Family::attention: return attention.get();
  }
  return nullptr;
}

std::optional<Family> family_from_name(const std::string& name) {
  for (Family f : {Family::elementwise, Family::matmul, Family::rowwise, Family::attention})
    if (name == family_name(f)) return f;
  return std::nullopt;
}

// The family names a spec may write (DESIGN.md §2's closed set; each has a codec).
std::vector<std::string> family_names() { return {"elementwise", "matmul", "rowwise", "attention"}; }

namespace {

// A positive static extent or a runtime scalar name.
std::optional<Dim> decode_dim(const MapReader& shape, const DocNode& value, const std::string& key) {
  std::optional<std::string> s = shape.scalar(value, key);
  if (!s) return std::nullopt;
  if (std::optional<int64_t> v = parse_int(*s)) {
    if (*v <= 0) {
      shape.error(value, "dimension '" + key + "' must be positive, got " + std::to_string(*v));
      return std::nullopt;
    }
    return Dim{*v, ""};
  }
  if (is_c_identifier(*s)) return Dim{0, *s};
  shape.error(value, "dimension '" + key + "' must be a positive integer or a runtime scalar name (a C identifier), got '" +
                         *s + "'");
  return std::nullopt;
}

}  // namespace

std::optional<Dim> decode_shape_dim(const MapReader& shape, const std::string& key) {
  const DocNode* value = shape.require(key);
  if (!value) return std::nullopt;
  // A decimal beyond the limit (or beyond int64) is an extent that is too
  // large, not a malformed name.
  if (value->is_scalar()) {
    const std::string& text = value->text;
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
  return decode_dim(shape, *value, key);
}

std::optional<double> decode_f32_constant(const MapReader& map, const std::string& key, bool required) {
  std::optional<double> v = map.number(key, required);
  if (!v) return std::nullopt;
  if (std::fabs(*v) >= kF32RoundsToInfinity) {
    map.error(map.get(key), "'" + key + "' is " + map.get(key)->text +
                                ", beyond the f32 range (largest finite f32: 3.40282347e38); kernels compute in f32");
    return std::nullopt;
  }
  return v;
}

bool decode_accumulate(const MapReader& spec_map, KernelSpec& spec) {
  std::optional<std::string> acc = spec_map.required_string("accumulate");
  if (!acc) return false;
  if (*acc != "f32") {
    spec_map.error(spec_map.get("accumulate"), unknown_value_message("accumulate", *acc, {"f32"}));
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
