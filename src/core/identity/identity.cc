#include "identity/identity.h"

#include "codecs/candidate_codec.h"
#include "codecs/codec.h"
#include "codecs/canonical_writer.h"
#include "support/sha256.h"

namespace tsr {

std::vector<uint8_t> canonical_encoding(const KernelSpec& spec) {
  CanonicalWriter out;
  out.field("identity_format");
  out.str(kIdentityFormat);
  out.field("spec_format");
  out.u64(static_cast<uint64_t>(spec.format_version));
  out.field("family");
  out.str(family_name(spec.family));
  const FamilyCodec* codec = find_codec(spec.family);
  out.field("codec_version");
  out.u64(codec ? static_cast<uint64_t>(codec->version()) : 0);
  out.field("kernel");
  out.str(spec.name);
  out.field("dtype");
  out.str(dtype_name(spec.dtype));
  out.field("accuracy");
  out.accuracy(spec.accuracy);
  out.field("determinism");
  out.str(determinism_name(spec.determinism));
  if (codec) codec->encode(spec, out);
  encode_candidates(spec.candidates, out);
  return out.bytes();
}

std::string kernel_identity(const KernelSpec& spec) {
  const std::vector<uint8_t> bytes = canonical_encoding(spec);
  return sha256_hex(bytes.data(), bytes.size());
}

}  // namespace tsr
