#include "receipts/receipt_from_run.h"

#include <ctime>

#include "codecs/codec.h"
#include "identity/identity.h"
#include "oracle/input_generator.h"
#include "spec/abi.h"
#include "support/decimal.h"
#include "support/sha256.h"

namespace tsr {

std::optional<Receipt> receipt_from_run(const KernelSpec& spec, const Artifact& variant, const OracleReport& report,
                                        const DeviceInfo& device, const std::string& route,
                                        const std::string& qualified_at) {
  if (report.verdict != Verdict::pass || device.emulated || !device.present) return std::nullopt;
  Receipt r;
  r.kernel = spec.name;
  r.identity = kernel_identity(spec);
  r.family = family_name(spec.family);
  const FamilyCodec* codec = find_codec(spec.family);
  r.codec_version = codec ? codec->version() : 0;
  r.target = variant.target;
  r.artifact_sha256 = sha256_hex(variant.bytes.data(), variant.bytes.size());
  r.artifact_key = variant.key;
  r.toolchain = variant.toolchain;
  r.device = {device.name, device.vendor, device.capability, device.driver};
  r.tesserac_version = TESSERAC_VERSION;
  r.oracle.verdict = "PASS";
  r.oracle.seed = report.seed;
  r.oracle.trials = report.trials;
  r.oracle.determinism_checked = report.determinism_checked;
  r.oracle.max_abs_err = report.max_abs_err;
  r.oracle.max_rel_err = report.max_rel_err;
  r.oracle.budget_atol = report.budget.atol;
  r.oracle.budget_rtol = report.budget.rtol;
  r.oracle.budget_use = report.budget_use;
  r.oracle.deciding_term = report.absolute_term_decided ? "absolute" : "relative";
  const std::vector<std::string> scalars = kernel_abi(spec).scalar_names();
  // The shapes the oracle ran (route trials included); a report without
  // them (from the verdict cache) ran the standard trials.
  const bool recorded = static_cast<int>(report.trial_shapes.size()) == report.trials;
  for (int i = 0; i < report.trials && (recorded || i < kTrialCount); ++i) {
    const std::map<std::string, int64_t> values =
        recorded ? report.trial_shapes[static_cast<size_t>(i)] : trial_scalars(spec, i);
    ReceiptTrial trial;
    for (const std::string& name : scalars) trial.dims.emplace_back(name, values.at(name));
    r.oracle.trial_shapes.push_back(std::move(trial));
  }
  r.measurement.route = route;
  r.measurement.median_latency_ns = report.median_latency_ns;
  r.measurement.launches = report.timed_launches;
  r.qualified_at = qualified_at;
  return r;
}

std::string qualification_time() {
  std::time_t t = std::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) {
    const std::optional<uint64_t> seconds = parse_decimal_u64(epoch);
    if (!seconds || *seconds > 253402300799ull) return "";   // after 9999-12-31T23:59:59Z
    t = static_cast<std::time_t>(*seconds);
  }
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace tsr
