#include "cli/receipt_options.h"

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "archive/admission.h"
#include "registry/registry.h"

namespace tsr::cli {

namespace {

// Every comma-separated item of every --require-receipts value.
std::vector<std::string> required_items(const ReceiptOptions& options) {
  std::vector<std::string> items;
  for (const std::string& value : options.require)
    for (size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
      end = value.find(',', start);
      items.push_back(value.substr(start, end == std::string::npos ? std::string::npos : end - start));
    }
  return items;
}

bool receipt_required(const std::vector<std::string>& items, const TargetName& target) {
  return std::any_of(items.begin(), items.end(),
                     [&](const std::string& item) { return item == "*" || item == target.kind || item == target.str(); });
}

}  // namespace

void add_receipt_options(CLI::App* sub, ReceiptOptions& options, bool required) {
  CLI::Option* receipts =
      sub->add_option("--receipts", options.paths, "Receipt files or directories of *.toml receipts (repeatable)");
  if (required) receipts->required();
  // A flag whose value only `=` can give: `--require-receipts x86` would
  // otherwise take a spec or archive path as its target list.
  sub->add_flag("--require-receipts{*}", options.require,
                "Every variant (or, with =TARGETS, every variant of these comma-separated kinds or kind:arch "
                "targets) must have a matching hardware PASS receipt (exit 1 naming what differs)");
  sub->add_option("--trusted-keys", options.trusted_keys,
                  "Accept only receipts signed by one of these Ed25519 public keys (PEM)");
}

int check_receipt_options(const ReceiptOptions& options) {
  const std::vector<TargetName> names = all_target_names();
  std::string kinds;
  for (const std::unique_ptr<Target>& t : all_targets()) kinds += (kinds.empty() ? "" : ", ") + t->kind();
  for (const std::string& item : required_items(options)) {
    const bool known = item == "*" || find_target(item) != nullptr ||
                       std::any_of(names.begin(), names.end(), [&](const TargetName& t) { return t.str() == item; });
    if (!known)
      return report_error("--require-receipts: '" + item +
                              "' is neither a target kind (x86, cuda, hip, xdna) nor a kind:arch target",
                          kExitUsage);
  }
  if (options.paths.empty() && !options.trusted_keys.empty())
    return report_error("--trusted-keys needs --receipts", kExitUsage);
  return kExitOk;
}

int apply_receipts(const ReceiptOptions& options, ArchiveContents& contents, AdmissionTotals& totals) {
  if (options.paths.empty() && options.require.empty() && options.trusted_keys.empty()) return kExitOk;
  if (int rc = check_receipt_options(options); rc != kExitOk) return rc;
  std::shared_ptr<TrustedKeys> trusted;
  if (!options.trusted_keys.empty()) {
    Expected<std::shared_ptr<TrustedKeys>> keys = load_trusted_keys(options.trusted_keys);
    if (!keys) return report(keys.error());
    trusted = *keys;
  }
  DiagnosticEngine diag(&std::cerr);
  Expected<std::vector<LoadedReceipt>> loaded = load_receipts(options.paths, trusted.get(), diag);
  if (!loaded) return report(loaded.error());
  Expected<AdmissionReport> admitted = admit_receipts(contents, *loaded);
  if (!admitted) return report(admitted.error());
  for (const std::string& line : admitted->unmatched) std::cerr << "tesserac: warning: " << line << "\n";
  totals.ran = !options.paths.empty();
  totals.attached = admitted->attached;
  totals.already_attached = admitted->already_attached;
  totals.unmatched = admitted->unmatched.size();
  const std::vector<std::string> items = required_items(options);
  size_t missing = 0;
  for (const UnqualifiedVariant& u : admitted->unqualified) {
    if (!receipt_required(items, u.target)) continue;
    std::cerr << "tesserac: error: " << u.message << "\n";
    ++missing;
  }
  if (missing > 0)
    return report_error("--require-receipts: " + std::to_string(missing) +
                            " variant(s) without a hardware receipt; nothing written",
                        kExitInvalid);
  return kExitOk;
}

void print_admission_totals(const AdmissionTotals& totals, const std::string& output) {
  if (!totals.ran) return;
  std::cerr << "tesserac: " << totals.attached << " receipt" << (totals.attached == 1 ? "" : "s") << " attached to "
            << output;
  if (totals.already_attached > 0) std::cerr << ", " << totals.already_attached << " already attached";
  std::cerr << ", " << totals.unmatched << " matched no variant\n";
}

}  // namespace tsr::cli
