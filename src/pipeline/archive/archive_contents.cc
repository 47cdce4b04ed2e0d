#include "archive/archive_contents.h"

namespace tsr {

const char* archive_verdict_name(ArchiveVerdict v) {
  switch (v) {
    case ArchiveVerdict::not_run: return "NOT_RUN";
    case ArchiveVerdict::pass: return "PASS";
    case ArchiveVerdict::fail: return "FAIL";
    case ArchiveVerdict::pass_emulated: return "PASS_EMULATED";
  }
  return "?";
}

namespace {
const char* const k_artifact_kinds[] = {"", "shared_object", "ptx", "cubin", "code_object", "xclbin"};
}

int artifact_kind_tag(const std::string& kind) {
  for (int i = 1; i < 6; ++i)
    if (kind == k_artifact_kinds[i]) return i;
  return 0;
}

const char* artifact_kind_name(int tag) { return tag > 0 && tag < 6 ? k_artifact_kinds[tag] : ""; }

bool same_abi(const KernelAbi& a, const KernelAbi& b) {
  if (a.bindings.size() != b.bindings.size()) return false;
  for (size_t i = 0; i < a.bindings.size(); ++i) {
    const Binding& x = a.bindings[i];
    const Binding& y = b.bindings[i];
    if (x.name != y.name || x.role != y.role || x.shape != y.shape) return false;
    if (x.role != Role::scalar && x.dtype != y.dtype) return false;
  }
  return true;
}

bool same_artifact(const Artifact& a, const Artifact& b) {
  return a.target == b.target && a.kind == b.kind && a.entry == b.entry && a.key == b.key &&
         a.toolchain == b.toolchain && a.bytes == b.bytes && a.metadata == b.metadata;
}

bool same_kernel(const ArchiveKernel& a, const ArchiveKernel& b) {
  if (a.name != b.name || a.identity != b.identity || a.family != b.family || a.dtype != b.dtype ||
      !same_abi(a.abi, b.abi) || a.variants.size() != b.variants.size() || a.verdicts != b.verdicts ||
      a.receipts != b.receipts)
    return false;
  for (size_t i = 0; i < a.variants.size(); ++i)
    if (!same_artifact(a.variants[i], b.variants[i])) return false;
  return true;
}

}  // namespace tsr
