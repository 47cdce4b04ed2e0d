#include "archive/verify_receipts.h"

#include "receipts/receipt_signature.h"

namespace tsr {

Status verify_receipts(const ArchiveContents& contents) {
  for (const ArchiveKernel& k : contents.kernels)
    for (const ArchiveReceipt& r : k.receipts) {
      // A trailer that is not exactly one well-formed last line would leave
      // bytes unsigned or unparseable: verify refuses it, signed or not.
      Expected<SplitReceipt> split = split_receipt_signature(r.bytes);
      if (!split) return invalid_input("kernel '" + k.name + "' receipt " + r.target.str() + ": " + split.error().message());
    }
  return ok();
}

}  // namespace tsr
