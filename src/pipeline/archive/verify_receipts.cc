#include "archive/verify_receipts.h"

#include <algorithm>

#include "archive/admission.h"
#include "receipts/receipt.h"

namespace tsr {

Status verify_receipts(const ArchiveContents& contents, const std::string& archive_name, DiagnosticEngine& diag) {
  for (const ArchiveKernel& k : contents.kernels) {
    size_t n = 0;
    for (const ArchiveReceipt& r : k.receipts) {
      const std::string where = "kernel '" + k.name + "' receipt " + r.target.str();
      const std::string file = archive_name + "(" + k.name + " " + r.target.str() + " receipt " + std::to_string(n++) + ")";
      std::optional<Receipt> receipt = decode_receipt(r.bytes, file, diag);
      diag.flush();
      if (!receipt) return invalid_input(where + ": not a valid receipt (see the errors above)");
      if (receipt->kernel != k.name) return invalid_input(where + ": names kernel '" + receipt->kernel + "'");
      if (!(receipt->target == r.target)) return invalid_input(where + ": names target " + receipt->target.str());
      // The validator found the variant for the record; the bytes must agree with it.
      auto variant = std::find_if(k.variants.begin(), k.variants.end(), [&](const Artifact& a) { return a.target == r.target; });
      if (variant == k.variants.end()) return invalid_input(where + ": the kernel has no variant of that target");
      if (std::optional<FieldDifference> d = first_difference(*receipt, k, *variant))
        return invalid_input(where + ": " + d->field + " differs: receipt " + d->receipt_value + ", archive " +
                             d->archive_value);
    }
  }
  return ok();
}

}  // namespace tsr
