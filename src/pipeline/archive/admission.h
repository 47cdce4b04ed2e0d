// Admission (docs/receipt-format.md, "Admission"): attach to
// an archive the hardware receipts that match a variant exactly, report the
// receipts that match nothing, and name, for each variant left without one,
// the first field that differs from the closest receipt.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "receipts/receipt.h"
#include "receipts/receipt_signature.h"
#include "support/diagnostics.h"

namespace tsr {

struct LoadedReceipt {
  std::string path;
  std::string bytes;   // the file, exactly (signature trailer included)
  Receipt receipt;
};

// Reads every receipt named: a file, or each `*.toml` of a directory (sorted).
// With `trusted`, each file's signature is checked before anything else of it
// is parsed (unsigned, unknown key and bad signature are errors). Decoding
// errors go to `diag` (file:line:col); the Error names the first file refused.
Expected<std::vector<LoadedReceipt>> load_receipts(const std::vector<std::string>& paths, const TrustedKeys* trusted,
                                                   DiagnosticEngine& diag);

// The first field, in binding order, in which `receipt` differs from
// `variant` of `kernel`: identity, codec_version, artifact_sha256,
// artifact_key (the kernel name and target are how a variant is found).
struct FieldDifference {
  std::string field;
  std::string receipt_value;
  std::string archive_value;
};
std::optional<FieldDifference> first_difference(const Receipt& receipt, const ArchiveKernel& kernel,
                                                const Artifact& variant);

struct UnqualifiedVariant {
  TargetName target;
  std::string message;   // "kernel 'K' variant T has no hardware receipt[: FIELD differs: ...]"
};

struct AdmissionReport {
  size_t attached = 0;                    // receipts this call attached
  size_t already_attached = 0;            // receipts the archive held already (byte-identical)
  std::vector<std::string> unmatched;     // "PATH matches no variant: ..." per receipt left out
  std::vector<UnqualifiedVariant> unqualified;   // per variant without a receipt, in archive order
};

// Attaches each matching receipt to its variant (ArchiveKernel::receipts) and
// records the variant's verdict as the receipt's hardware PASS. A receipt for
// a variant whose verdict is FAIL is an error, as is one that binds twice.
Expected<AdmissionReport> admit_receipts(ArchiveContents& contents, const std::vector<LoadedReceipt>& receipts);

}  // namespace tsr
