// `candidates:` (docs/spec-format.md "Candidates"): the decoder, the verifier
// and the canonical encoding of a spec's kernel_call and inline_ptx entries.
#pragma once

#include "codecs/codec.h"
#include "spec/target_catalogue.h"

namespace tsr {

// Reads `candidates:` of `spec_map` into spec.candidates, reporting every
// rejection at its key. Runs after the family body decoded (`body_ok`):
// whether a delegate can compute the kernel depends on the body.
void decode_candidates(const MapReader& spec_map, KernelSpec& spec, bool body_ok, const TargetRefusals& refusals);

// Appends the `candidates` field; writes nothing for a spec without
// candidates, so every identity from before candidates existed is unchanged.
void encode_candidates(const std::vector<Candidate>& candidates, CanonicalWriter& out);

}  // namespace tsr
