// The closed receipt codec (DESIGN.md §5, docs/receipt-format.md): every key
// required, every type declared, every enum closed; unknown keys and unknown
// format versions are errors. All errors of a file are reported, each at the
// value (or the table) it concerns, through the same MapReader and the same
// wording as the spec codecs.
#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "codecs/codec.h"
#include "document/map_reader.h"
#include "document/toml_document.h"
#include "receipts/receipt.h"
#include "receipts/receipt_limits.h"
#include "receipts/receipt_rules.h"
#include "receipts/receipt_trailer.h"
#include "support/c_identifiers.h"
#include "registry/registry.h"

namespace tsr {
namespace {

constexpr ScalarRules kTyped = ScalarRules::typed;

// The verdicts a receipt can never hold, each refused with the reason.
const std::vector<std::string>& non_receipt_verdicts() {
  static const std::vector<std::string> v = {"PASS_EMULATED", "NOT_RUN", "FAIL"};
  return v;
}

std::optional<std::string> non_empty(const MapReader& m, const std::string& key) {
  std::optional<std::string> s = m.required_string(key);
  if (s && s->empty()) {
    m.error(m.get(key), "'" + key + "' must not be empty");
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> count(const MapReader& m, const DocNode& value, const std::string& key, int64_t least) {
  std::optional<int64_t> v = m.integer(value, key);
  if (v && *v < least) {
    m.error(value, "'" + key + "' must be at least " + std::to_string(least) + ", got " + std::to_string(*v));
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> required_count(const MapReader& m, const std::string& key, int64_t least) {
  const DocNode* value = m.require(key);
  return value ? count(m, *value, key, least) : std::nullopt;
}

std::optional<double> magnitude(const MapReader& m, const std::string& key) {
  std::optional<double> v = m.number(key, true);
  if (v && *v < 0.0) {
    m.error(m.get(key), "'" + key + "' must not be negative, got " + m.get(key)->text);
    return std::nullopt;
  }
  return v;
}

// A u64 as a canonical decimal string (TOML integers stop at 2^63-1).
std::optional<uint64_t> seed(const MapReader& m) {
  std::optional<std::string> s = m.required_string("seed");
  if (!s) return std::nullopt;
  const bool digits = !s->empty() && s->size() <= 20 && (s->size() == 1 || (*s)[0] != '0') &&
                      std::all_of(s->begin(), s->end(), [](char c) { return c >= '0' && c <= '9'; });
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(s->c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE) {
    m.error(m.get("seed"), "expected a decimal string from \"0\" to \"18446744073709551615\" for 'seed', got '" + *s + "'");
    return std::nullopt;
  }
  return static_cast<uint64_t>(v);
}

void decode_kernel(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("kernel", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[kernel]", top.diag(), kTyped);
  m.check_keys({"name", "identity", "family", "codec_version"});
  if (std::optional<std::string> name = m.required_string("name")) {
    if (is_c_identifier(*name)) r.kernel = *name;
    else m.error(m.get("name"), "kernel name '" + *name + "' is not a C identifier");
  }
  if (auto id = required_sha256(m, "identity")) r.identity = *id;
  if (auto family = m.required_enum("family", family_names())) r.family = *family;
  if (auto v = required_count(m, "codec_version", 1)) r.codec_version = static_cast<int>(std::min<int64_t>(*v, INT32_MAX));
}

void decode_target(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("target", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[target]", top.diag(), kTyped);
  m.check_keys({"kind", "arch"});
  std::vector<std::string> kinds;
  for (const auto& t : all_targets()) kinds.push_back(t->kind());
  std::optional<std::string> kind = m.required_enum("kind", kinds, "target kind");
  if (!kind) {
    m.required_string("arch");   // still checks its type and presence
    return;
  }
  const Target* target = find_target(*kind);
  if (std::optional<std::string> arch = m.required_enum("arch", target->archs(), *kind + " arch"))
    r.target = TargetName{*kind, *arch};
}

void decode_artifact(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("artifact", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[artifact]", top.diag(), kTyped);
  m.check_keys({"sha256", "key", "toolchain"});
  if (auto v = required_sha256(m, "sha256")) r.artifact_sha256 = *v;
  if (auto v = non_empty(m, "key")) r.artifact_key = *v;
  if (auto v = non_empty(m, "toolchain")) r.toolchain = *v;
}

void decode_device(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("device", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[device]", top.diag(), kTyped);
  m.check_keys({"name", "vendor", "capability", "driver"});
  if (auto v = non_empty(m, "name")) r.device.name = *v;
  if (auto v = m.required_string("vendor")) r.device.vendor = *v;
  if (auto v = m.required_string("capability")) r.device.capability = *v;
  if (auto v = m.required_string("driver")) r.device.driver = *v;
}

void decode_tesserac(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("tesserac", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[tesserac]", top.diag(), kTyped);
  m.check_keys({"version"});
  if (auto v = non_empty(m, "version")) r.tesserac_version = *v;
}

void decode_verdict(const MapReader& m, Receipt& r) {
  std::optional<std::string> verdict = m.required_string("verdict");
  if (!verdict) return;
  if (*verdict == "PASS") {
    r.oracle.verdict = *verdict;
    return;
  }
  const auto& refused = non_receipt_verdicts();
  if (std::find(refused.begin(), refused.end(), *verdict) != refused.end())
    m.error(m.get("verdict"), "verdict '" + *verdict + "' makes no receipt: a receipt is proof of a hardware PASS (allowed: PASS)");
  else
    m.error(m.get("verdict"), unknown_value_message("verdict", *verdict, {"PASS"}));
}

void decode_trial_shapes(const MapReader& m, Receipt& r) {
  const DocNode* list = m.list_value("trial_shapes", true);
  if (!list) return;
  for (const DocNode& item : list->items) {
    if (!item.is_map()) {
      m.error(item, wrong_type_message("a table of dimensions", "trial_shapes", describe_node(item)));
      continue;
    }
    ReceiptTrial trial;
    for (const DocEntry& dim : item.entries) {
      if (!is_c_identifier(dim.key.text)) {
        m.error(dim.key, "trial dimension name '" + dim.key.text + "' is not a C identifier");
        continue;
      }
      if (std::optional<int64_t> v = count(m, dim.value, dim.key.text, 0)) trial.dims.emplace_back(dim.key.text, *v);
    }
    r.oracle.trial_shapes.push_back(std::move(trial));
  }
}

void decode_oracle(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("oracle", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[oracle]", top.diag(), kTyped);
  m.check_keys({"verdict", "seed", "trials", "determinism_checked", "max_abs_err", "max_rel_err", "budget_atol",
                "budget_rtol", "budget_use", "deciding_term", "trial_shapes"});
  ReceiptOracle& o = r.oracle;
  decode_verdict(m, r);
  if (auto v = seed(m)) o.seed = *v;
  if (auto v = required_count(m, "trials", 1)) o.trials = static_cast<int>(std::min<int64_t>(*v, INT32_MAX));
  if (auto v = m.required_bool("determinism_checked")) o.determinism_checked = *v;
  if (auto v = magnitude(m, "max_abs_err")) o.max_abs_err = *v;
  if (auto v = magnitude(m, "max_rel_err")) o.max_rel_err = *v;
  if (auto v = magnitude(m, "budget_atol")) o.budget_atol = *v;
  if (auto v = magnitude(m, "budget_rtol")) o.budget_rtol = *v;
  if (auto v = magnitude(m, "budget_use")) o.budget_use = *v;
  if (auto v = m.required_enum("deciding_term", {"absolute", "relative"}, "deciding term")) o.deciding_term = *v;
  decode_trial_shapes(m, r);
}

void decode_measurement(const MapReader& top, Receipt& r) {
  const DocNode* node = top.map_value("measurement", true);
  if (!node) return;
  MapReader m(*node, top.file(), "[measurement]", top.diag(), kTyped);
  m.check_keys({"route", "median_latency_ns", "launches"});
  if (auto v = non_empty(m, "route")) r.measurement.route = *v;
  if (auto v = magnitude(m, "median_latency_ns")) r.measurement.median_latency_ns = *v;
  if (auto v = required_count(m, "launches", 1)) r.measurement.launches = static_cast<int>(std::min<int64_t>(*v, INT32_MAX));
}

std::optional<Receipt> decode_root(const DocNode& root, const std::string& file, DiagnosticEngine& diag,
                                   Receipt r) {
  if (root.entries.empty()) {
    diag.error(SourceLocation{file, 0, 0}, "receipt file is empty (expected format_version, qualified_at and the "
                                           "tables [kernel], [target], [artifact], [device], [tesserac], [oracle], "
                                           "[measurement])");
    return std::nullopt;
  }
  MapReader top(root, file, "receipt", diag, kTyped);
  // Another version's schema is unknown: say that once rather than guess at its keys.
  std::optional<int64_t> version = top.required_int("format_version");
  if (version && *version != kReceiptFormatVersion) {
    top.error(top.get("format_version"), unsupported_version_message("receipt", *version, kReceiptFormatVersion));
    return std::nullopt;
  }
  const size_t errors_before = diag.error_count();
  top.check_keys({"format_version", "qualified_at", "kernel", "target", "artifact", "device", "tesserac", "oracle",
                  "measurement"});
  if (std::optional<std::string> at = top.required_datetime("qualified_at")) {
    if (is_receipt_timestamp(*at)) r.qualified_at = *at;
    else top.error(top.get("qualified_at"), "bad timestamp '" + *at + "' for 'qualified_at' (expected UTC with whole seconds, like 2026-12-01T14:00:00Z)");
  }
  decode_kernel(top, r);
  decode_target(top, r);
  decode_artifact(top, r);
  decode_device(top, r);
  decode_tesserac(top, r);
  decode_oracle(top, r);
  decode_measurement(top, r);
  if (diag.error_count() != errors_before || !version) return std::nullopt;
  return r;
}

}  // namespace

std::optional<Receipt> decode_receipt(const std::string& text, const std::string& file, DiagnosticEngine& diag) {
  // Shown as soon as the file is decoded, like a spec's (spec_loader.cc).
  struct FlushAtEnd { DiagnosticEngine& diag; ~FlushAtEnd() { diag.flush(); } } flush_at_end{diag};
  if (text.size() > kMaxReceiptFileBytes) {
    diag.error(SourceLocation{file, 0, 0}, "receipt is " + std::to_string(text.size()) + " bytes, over the limit of " +
                                               std::to_string(kMaxReceiptFileBytes) + " bytes");
    return std::nullopt;
  }
  diag.add_source(file, text);
  if (text.find('\0') != std::string::npos) {
    diag.error(SourceLocation{file, 1, 1}, "receipt file contains a NUL byte (expected TOML text)");
    return std::nullopt;
  }
  const size_t errors_before = diag.error_count();
  Receipt r;
  r.signature = read_signature_trailer(text, file, diag);
  std::optional<DocNode> root = parse_toml_document(text, file, diag);
  if (!root) return std::nullopt;
  std::optional<Receipt> receipt = decode_root(*root, file, diag, std::move(r));
  if (diag.error_count() != errors_before) return std::nullopt;
  return receipt;
}

}  // namespace tsr
