#include "cli/receipt_options.h"

#include <iostream>

#include "cli/commands.h"
#include "receipts/admission.h"

namespace tsr::cli {

void add_receipt_options(CLI::App* sub, ReceiptOptions& options, bool required) {
  CLI::Option* receipts =
      sub->add_option("--receipts", options.paths, "Receipt files or directories of *.toml receipts (repeatable)");
  if (required) receipts->required();
  sub->add_flag("--require-receipts", options.require,
                "Every variant must have a matching hardware PASS receipt (exit 1 naming what differs)");
  sub->add_option("--trusted-keys", options.trusted_keys,
                  "Accept only receipts signed by one of these Ed25519 public keys (PEM)");
}

int apply_receipts(const ReceiptOptions& options, ArchiveContents& contents) {
  if (options.paths.empty() && !options.require && options.trusted_keys.empty()) return kExitOk;
  if (options.paths.empty() && !options.trusted_keys.empty())
    return report_error("--trusted-keys needs --receipts", kExitUsage);
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
  std::cerr << "tesserac: " << admitted->attached << " receipt" << (admitted->attached == 1 ? "" : "s")
            << " attached, " << admitted->unmatched.size() << " matched no variant\n";
  if (options.require && !admitted->unqualified.empty()) {
    for (const std::string& line : admitted->unqualified) std::cerr << "tesserac: error: " << line << "\n";
    return report_error("--require-receipts: " + std::to_string(admitted->unqualified.size()) +
                            " variant(s) without a hardware receipt; nothing written",
                        kExitInvalid);
  }
  return kExitOk;
}

}  // namespace tsr::cli
