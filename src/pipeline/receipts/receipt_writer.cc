// The canonical receipt bytes (docs/receipt-format.md, "Canonical bytes"):
// tables and keys in one fixed order, one spelling per value (document/
// toml_text.h), '\n' line ends and no trailing whitespace, so the same
// Receipt always gives the same bytes and a signature over them stays valid.
#include "document/toml_text.h"
#include "receipts/receipt.h"
#include "receipts/receipt_rules.h"
#include "receipts/receipt_trailer.h"

namespace tsr {
namespace {

class TomlOut {
 public:
  void table(const char* name) { out_ += std::string(out_.empty() ? "" : "\n") + "[" + name + "]\n"; }
  void str(const char* key, const std::string& v) { line(key, toml_string(v)); }
  void num(const char* key, int64_t v) { line(key, std::to_string(v)); }
  void real(const char* key, double v) { line(key, toml_float(v)); }
  void boolean(const char* key, bool v) { line(key, v ? "true" : "false"); }
  void line(const char* key, const std::string& value) { out_ += std::string(key) + " = " + value + "\n"; }
  std::string& text() { return out_; }

 private:
  std::string out_;
};

std::string trial_shape(const ReceiptTrial& trial) {
  if (trial.dims.empty()) return "{}";
  std::string out = "{ ";
  for (size_t i = 0; i < trial.dims.size(); ++i)
    out += (i ? ", " : "") + toml_key(trial.dims[i].first) + " = " + std::to_string(trial.dims[i].second);
  return out + " }";
}

}  // namespace

std::string write_receipt(const Receipt& r) {
  TomlOut out;
  out.num("format_version", r.format_version);
  // A TOML date-time when it is one; anything else is quoted, so a bad value
  // can never break the file's syntax (the decoder then refuses it by name).
  out.line("qualified_at", is_receipt_timestamp(r.qualified_at) ? r.qualified_at : toml_string(r.qualified_at));
  out.table("kernel");
  out.str("name", r.kernel);
  out.str("identity", r.identity);
  out.str("family", r.family);
  out.num("codec_version", r.codec_version);
  out.table("target");
  out.str("kind", r.target.kind);
  out.str("arch", r.target.arch);
  out.table("artifact");
  out.str("sha256", r.artifact_sha256);
  out.str("key", r.artifact_key);
  out.str("toolchain", r.toolchain);
  out.table("device");
  out.str("name", r.device.name);
  out.str("vendor", r.device.vendor);
  out.str("capability", r.device.capability);
  out.str("driver", r.device.driver);
  out.table("tesserac");
  out.str("version", r.tesserac_version);
  out.table("oracle");
  out.str("verdict", r.oracle.verdict);
  // TOML integers are signed 64-bit: a decimal string keeps every u64 exact.
  out.str("seed", std::to_string(r.oracle.seed));
  out.num("trials", r.oracle.trials);
  out.boolean("determinism_checked", r.oracle.determinism_checked);
  out.real("max_abs_err", r.oracle.max_abs_err);
  out.real("max_rel_err", r.oracle.max_rel_err);
  out.real("budget_atol", r.oracle.budget_atol);
  out.real("budget_rtol", r.oracle.budget_rtol);
  out.real("budget_use", r.oracle.budget_use);
  out.str("deciding_term", r.oracle.deciding_term);
  if (r.oracle.trial_shapes.empty()) {
    out.line("trial_shapes", "[]");
  } else {
    std::string list = "[\n";
    for (const ReceiptTrial& t : r.oracle.trial_shapes) list += "  " + trial_shape(t) + ",\n";
    out.line("trial_shapes", list + "]");
  }
  out.table("measurement");
  out.str("route", r.measurement.route);
  out.real("median_latency_ns", r.measurement.median_latency_ns);
  out.num("launches", r.measurement.launches);
  if (r.signature) out.text() += signature_trailer_line(*r.signature);
  return out.text();
}

std::string receipt_file_name(const Receipt& r) {
  return r.kernel + "." + r.target.kind + "-" + r.target.arch + "." + r.artifact_sha256.substr(0, 12) +
         ".receipt.toml";
}

}  // namespace tsr
