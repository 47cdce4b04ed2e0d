// A closed family codec (DESIGN.md §2): the schema of the family-specific
// keys, their validation with source locations, and the canonical encoding.
// Unknown keys and values are errors; semantic keys have no defaults.
#pragma once

#include <string>
#include <vector>

#include "codecs/canonical_writer.h"
#include "spec/kernel_spec.h"
#include "document/map_reader.h"
#include "document/scalar_text.h"

namespace tsr {

class FamilyCodec {
 public:
  virtual ~FamilyCodec() = default;
  virtual Family family() const = 0;
  // Bumped whenever the meaning or the encoding of a family key changes.
  virtual int version() const = 0;
  // Keys this family adds to the common ones, in documentation order.
  virtual std::vector<std::string> keys() const = 0;
  // Keys other families take that this one rejects in decode() with a reason.
  virtual std::vector<std::string> rejected_keys() const { return {}; }
  // Reads the family keys of `spec_map` into `spec` (body, accumulate).
  // Returns false when it reported an error.
  virtual bool decode(const MapReader& spec_map, KernelSpec& spec) const = 0;
  virtual void encode(const KernelSpec& spec, CanonicalWriter& out) const = 0;
};

// Keys every family accepts, in documentation order.
const std::vector<std::string>& common_keys();

const FamilyCodec* find_codec(Family family);
std::optional<Family> family_from_name(const std::string& name);
std::vector<std::string> family_names();

// Shared decoding helpers used by the family codecs.
// A shape entry: a static extent within the limits (codecs/limits.h) or a runtime name.
std::optional<Dim> decode_shape_dim(const MapReader& shape, const std::string& key);
bool decode_accumulate(const MapReader& spec_map, KernelSpec& spec);
std::vector<std::string> unary_op_names();

// `kernel:`: a C identifier that may stem exported symbols (support/c_identifiers.h).
void decode_kernel_name(const MapReader& spec_map, KernelSpec& spec);

// A constant the kernel applies in f32 (scale, clamp bounds, eps): a finite
// decimal that rounds to a finite f32. Reports a missing key when `required`.
std::optional<double> decode_f32_constant(const MapReader& map, const std::string& key, bool required);

// Checks the decoded body's shape against its ABI: runtime dimension names
// distinct from the buffer names, and every buffer's static extents within
// the per-buffer element limit. `shape_keys` pairs each shape key with its Dim.
void check_shape_against_abi(const MapReader& spec_map, const KernelSpec& spec,
                             const std::vector<std::pair<std::string, Dim>>& shape_keys);

}  // namespace tsr
