// libFuzzer target for the receipt decoder (the TOML shape scan, toml++ parse
// and the closed receipt codec): `decode_receipt` is what `admit`, `verify`
// and `inspect` call on a receipt's bytes. Any input must end in a receipt or
// in diagnostics, never a crash or an escaped exception. A receipt that
// decodes must have one canonical form: its written bytes decode again and
// write back byte for byte. And the shape scan must bound what toml++ builds:
// no tree it lets through nests deeper than kMaxTomlDepth or has a longer key
// than kMaxTomlKeyBytes (a miss would be a stack overflow waiting for a deeper
// input). Build with -DTESSERAC_BUILD_FUZZ=ON and clang; see tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "document/toml_document.h"
#include "document/toml_limits.h"
#include "receipts/receipt.h"
#include "receipts/receipt_limits.h"

namespace {

// Walks without recursion: the tree is what is being checked.
void check_tree_within_limits(const tsr::DocNode& root) {
  std::vector<std::pair<const tsr::DocNode*, int>> pending = {{&root, 0}};
  while (!pending.empty()) {
    const auto [node, level] = pending.back();
    pending.pop_back();
    if ((node->is_map() || node->is_list()) && level > tsr::kMaxTomlDepth) std::abort();
    for (const tsr::DocNode& item : node->items) pending.emplace_back(&item, level + 1);
    for (const tsr::DocEntry& entry : node->entries) {
      if (entry.key.text.size() > tsr::kMaxTomlKeyBytes) std::abort();
      pending.emplace_back(&entry.value, level + 1);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (text.size() <= tsr::kMaxReceiptFileBytes) {
    tsr::DiagnosticEngine quiet;
    if (std::optional<tsr::DocNode> tree = tsr::parse_toml_document(text, "fuzz.toml", quiet))
      check_tree_within_limits(*tree);
    else if (!quiet.has_errors()) std::abort();
  }
  tsr::DiagnosticEngine diag;
  std::optional<tsr::Receipt> receipt = tsr::decode_receipt(text, "fuzz.toml", diag);
  if (!receipt && !diag.has_errors()) std::abort();   // rejected without saying why
  (void)diag.render();
  if (!receipt) return 0;
  const std::string canonical = tsr::write_receipt(*receipt);
  tsr::DiagnosticEngine again;
  std::optional<tsr::Receipt> second = tsr::decode_receipt(canonical, "fuzz.toml", again);
  if (!second || tsr::write_receipt(*second) != canonical) std::abort();
  return 0;
}
