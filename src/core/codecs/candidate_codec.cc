// Each candidate is a one-key map, `kernel_call:` or `inline_ptx:`, whose
// value is a closed map. A candidate is verified on its own (fields), then
// against the closed delegate table, the spec's targets and the kernel.
#include "codecs/candidate_codec.h"

#include <algorithm>

#include "delegate/delegate_table.h"
#include "support/suggest.h"
#include "spec/target_catalogue.h"

namespace tsr {
namespace {

const char* kind_name(Candidate::Kind k) { return k == Candidate::Kind::kernel_call ? "kernel_call" : "inline_ptx"; }

std::string located(const SourceLocation& l) {
  return l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
}

// A required string that is not empty or blank; `expected` says what belongs there.
std::optional<std::string> nonempty(const MapReader& m, const std::string& key, const std::string& expected) {
  std::optional<std::string> s = m.required_string(key);
  if (!s) return std::nullopt;
  if (s->find_first_not_of(" \t\r\n") == std::string::npos) {
    m.error(m.get(key), "'" + key + "' is empty (expected " + expected + ")");
    return std::nullopt;
  }
  return s;
}

// "x86" (every arch of a registered kind) or a "kind:arch" name the registry accepts.
std::optional<std::string> decode_arch(const MapReader& m, const TargetRefusals& refusals) {
  std::optional<std::string> arch =
      nonempty(m, "arch", "a target kind such as 'x86', or a 'kind:arch' name such as 'cuda:sm_90'");
  if (!arch) return std::nullopt;
  if (arch->find(':') == std::string::npos) {
    if (find_target_kind(*arch)) return arch;
    m.error(m.get("arch"), "unknown target kind '" + *arch + "' in 'arch'" + did_you_mean(*arch, target_kind_names()) +
                               " (known: " + join(target_kind_names()) +
                               "; or a 'kind:arch' name)");
    return std::nullopt;
  }
  const std::optional<TargetName> name = parse_target_name(*arch);
  if (name && is_known_target(*name)) return arch;
  m.error(m.get("arch"), unknown_target_message(*arch, refusals));
  return std::nullopt;
}

// kind, then `tolerance` (-> atol) and/or `tolerance_rel` (-> rtol) for tolerance_bounded.
Accuracy decode_accuracy(const MapReader& m) {
  Accuracy acc;
  const DocNode* node = m.map_value("accuracy", true);
  if (!node) return acc;
  MapReader a(*node, m.file(), "'accuracy'", m.diag());
  a.check_keys({"kind", "tolerance", "tolerance_rel"});
  std::optional<std::string> kind = a.required_enum("kind", {"reference_exact", "tolerance_bounded"}, "accuracy kind");
  if (!kind) return acc;
  if (*kind == "reference_exact") {
    for (const char* key : {"tolerance", "tolerance_rel"})
      a.reject_if_present(key, "does not apply to reference_exact (it uses the oracle's default budget for the dtype)");
    return acc;
  }
  acc.kind = Accuracy::Kind::tolerance_bounded;
  if (!a.has("tolerance") && !a.has("tolerance_rel")) {
    a.error(node, "tolerance_bounded needs 'tolerance', 'tolerance_rel' or both (neither is given)");
    return acc;
  }
  acc.atol = a.number("tolerance", false);
  acc.rtol = a.number("tolerance_rel", false);
  for (const auto& [key, v] : {std::pair{"tolerance", acc.atol}, std::pair{"tolerance_rel", acc.rtol}})
    if (v && *v < 0.0) a.error(a.get(key), std::string("'") + key + "' must not be negative");
  return acc;
}

Determinism decode_determinism(const MapReader& m) {
  std::optional<std::string> d = m.required_enum("determinism", {"deterministic", "nondeterministic_allowed"});
  return d && *d == "nondeterministic_allowed" ? Determinism::nondeterministic_allowed : Determinism::deterministic;
}

// The fields of one kernel_call; then the closed delegate table.
void decode_kernel_call(const MapReader& c, const KernelSpec& spec, Candidate& out, const TargetRefusals& refusals) {
  c.check_keys({"callee", "arch", "binding", "library", "provenance", "accuracy", "determinism"});
  KernelCallCandidate& k = out.call;
  std::optional<std::string> callee = nonempty(c, "callee", "the name of a delegate, e.g. 'cblas_sgemm'");
  std::optional<std::string> arch = decode_arch(c, refusals);
  std::optional<std::string> binding = c.required_enum("binding", {"c_abi", "cuda_kernel"});
  if (auto p = c.required_enum("provenance", {"vendor_library", "hand_tuned"}))
    k.provenance = *p == "vendor_library" ? Provenance::vendor_library : Provenance::hand_tuned;
  std::optional<std::string> library = c.has("library") ? c.required_string("library") : std::nullopt;
  k.accuracy = decode_accuracy(c);
  k.determinism = decode_determinism(c);
  k.callee = callee.value_or("");
  k.arch = arch.value_or("");
  k.binding = binding.value_or("");
  if (!callee || !arch) return;
  const std::optional<TargetName> full = parse_target_name(*arch);
  const std::string kind = full ? full->kind : *arch;
  const DelegateEntry* d = find_delegate(spec.family, kind, *callee);
  if (!d) {
    const std::vector<std::string> known = delegate_callees(spec.family, kind);
    c.error(c.get("callee"), "unknown callee '" + *callee + "': " +
                                 (known.empty() ? std::string("no delegate is known for ") + family_name(spec.family) +
                                                      " on " + kind
                                                : std::string("the delegates known for ") + family_name(spec.family) +
                                                      " on " + kind + " are " + join(known)) +
                                 " (the delegate table is closed; it is extended in code)");
    return;
  }
  if (binding && *binding != d->binding)
    c.error(c.get("binding"), "binding '" + *binding + "' does not match " + d->callee + ", which is called through " +
                                  d->binding);
  if (library && *library != d->library)
    c.error(c.get("library"), "library '" + *library + "' does not match " + d->callee + ", which " + d->library +
                                  " provides");
}

void decode_inline_ptx(const MapReader& c, Candidate& out, const TargetRefusals& refusals) {
  c.check_keys({"ptx", "constraints", "arch", "accuracy", "determinism", "has_side_effects"});
  InlinePtxCandidate& p = out.ptx;
  p.ptx = nonempty(c, "ptx", "the PTX body of the asm statement").value_or("");
  p.constraints = nonempty(c, "constraints", "the asm operand constraints, e.g. '=f,f'").value_or("");
  if (std::optional<std::string> arch = decode_arch(c, refusals)) {
    p.arch = *arch;
    if (*arch != "cuda" && arch->rfind("cuda:", 0) != 0)
      c.error(c.get("arch"), "inline_ptx arch '" + *arch + "' is not a cuda target (PTX runs on 'cuda' or 'cuda:<arch>')");
  }
  p.accuracy = decode_accuracy(c);
  p.determinism = decode_determinism(c);
  if (c.has("has_side_effects")) p.has_side_effects = c.required_bool("has_side_effects").value_or(false);
}

bool same_candidate(const Candidate& a, const Candidate& b) {
  if (a.kind != b.kind || a.arch() != b.arch()) return false;
  if (a.kind == Candidate::Kind::kernel_call) return a.call.callee == b.call.callee;
  return a.ptx.ptx == b.ptx.ptx && a.ptx.constraints == b.ptx.constraints;
}

// Checks that need the whole spec: its targets, the kernel itself, the other candidates.
void check_in_spec(const MapReader& c, const KernelSpec& spec, const Candidate& cand, bool body_ok) {
  if (!spec.targets.empty()) {
    const bool listed = std::any_of(spec.targets.begin(), spec.targets.end(), [&](const std::string& t) {
      std::optional<TargetName> n = parse_target_name(t);
      return n && cand.applies_to(*n);
    });
    if (!listed)
      c.error(c.get("arch"), "candidate arch '" + cand.arch() + "' matches none of the spec's targets (" +
                                 join(spec.targets) + ")");
  }
  for (const Candidate& earlier : spec.candidates)
    if (same_candidate(earlier, cand))
      c.error(nullptr, std::string("duplicate candidate: ") + kind_name(cand.kind) +
                  (cand.kind == Candidate::Kind::kernel_call ? " '" + cand.call.callee + "'" : std::string(" body")) +
                  " for arch '" + cand.arch() + "' is already listed at " + located(earlier.location));
  if (!body_ok || cand.kind != Candidate::Kind::kernel_call) return;
  const std::optional<TargetName> n = parse_target_name(cand.arch());
  const DelegateEntry* d = find_delegate(spec.family, n ? n->kind : cand.arch(), cand.call.callee);
  const std::string why = d ? delegate_cannot_compute(*d, spec) : "";
  if (!why.empty()) c.error(c.get("callee"), "delegate '" + d->callee + "' cannot compute this kernel: " + why);
}

void decode_item(const MapReader& m, const DocNode& item, KernelSpec& spec, bool body_ok,
                 const TargetRefusals& refusals) {
  const std::string expected = "a one-key map {kernel_call: {...}} or {inline_ptx: {...}}";
  if (!item.is_map() || item.size() != 1) {
    m.error(item, "expected " + expected + " in 'candidates', got " + describe_node(item));
    return;
  }
  const DocNode& key = item.entries[0].key;
  const DocNode& value = item.entries[0].value;
  const std::string name = key.is_scalar() ? key.text : "";
  Candidate cand;
  if (name == "kernel_call") {
    cand.kind = Candidate::Kind::kernel_call;
  } else if (name == "inline_ptx") {
    cand.kind = Candidate::Kind::inline_ptx;
  } else {
    m.error(key, unknown_value_message("candidate kind", name, {"kernel_call", "inline_ptx"}));
    return;
  }
  if (!value.is_map()) {
    m.error(value, wrong_type_message("a map", name, describe_node(value)));
    return;
  }
  cand.location = value.location;
  MapReader c(value, m.file(), name, m.diag());
  const size_t errors_before = m.diag().error_count();
  if (cand.kind == Candidate::Kind::kernel_call) {
    decode_kernel_call(c, spec, cand, refusals);
  } else {
    cand.ptx_index = 1 + static_cast<int>(std::count_if(spec.candidates.begin(), spec.candidates.end(),
                                                         [](const Candidate& x) {
                                                           return x.kind == Candidate::Kind::inline_ptx;
                                                         }));
    decode_inline_ptx(c, cand, refusals);
  }
  if (m.diag().error_count() != errors_before) return;
  check_in_spec(c, spec, cand, body_ok);
  spec.candidates.push_back(std::move(cand));
}

}  // namespace

void decode_candidates(const MapReader& spec_map, KernelSpec& spec, bool body_ok, const TargetRefusals& refusals) {
  const DocNode* list = spec_map.list_value("candidates", false);
  if (!list) return;
  for (const DocNode& item : list->items) decode_item(spec_map, item, spec, body_ok, refusals);
}

void encode_candidates(const std::vector<Candidate>& candidates, CanonicalWriter& out) {
  if (candidates.empty()) return;
  out.field("candidates");
  out.list_size(candidates.size());
  for (const Candidate& c : candidates) {
    out.str(kind_name(c.kind));
    if (c.kind == Candidate::Kind::kernel_call) {
      out.str(c.call.callee);
      out.str(c.call.arch);
      out.str(c.call.binding);
      out.str(provenance_name(c.call.provenance));
    } else {
      out.str(c.ptx.ptx);
      out.str(c.ptx.constraints);
      out.str(c.ptx.arch);
      out.u64(c.ptx.has_side_effects ? 1 : 0);
    }
    out.accuracy(c.accuracy());
    out.str(determinism_name(c.determinism()));
  }
}

}  // namespace tsr
