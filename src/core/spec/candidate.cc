// The accessors of a spec's candidates (kernel_spec.h). Decoding and the
// verifier live in codecs/candidate_codec.cc.
#include "spec/kernel_spec.h"
#include "spec/target_catalogue.h"

namespace tsr {

const char* provenance_name(Provenance p) {
  return p == Provenance::vendor_library ? "vendor_library" : "hand_tuned";
}

const char* determinism_name(Determinism d) {
  return d == Determinism::deterministic ? "deterministic" : "nondeterministic_allowed";
}

const std::string& Candidate::arch() const { return kind == Kind::kernel_call ? call.arch : ptx.arch; }

const Accuracy& Candidate::accuracy() const { return kind == Kind::kernel_call ? call.accuracy : ptx.accuracy; }

Determinism Candidate::determinism() const {
  return kind == Kind::kernel_call ? call.determinism : ptx.determinism;
}

std::string Candidate::name() const {
  return kind == Kind::kernel_call ? call.callee : "inline_ptx." + std::to_string(ptx_index);
}

bool Candidate::applies_to(const TargetName& t) const { return arch() == t.kind || arch() == t.str(); }

}  // namespace tsr
