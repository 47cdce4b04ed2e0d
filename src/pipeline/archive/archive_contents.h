// What goes into a .tfat archive (docs/archive-format.md): kernels with their
// ABI, compiled variants and oracle verdicts, plus archive-level metadata.
// The writer sorts everything itself, so callers may fill these in any order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spec/abi.h"
#include "spec/kernel_spec.h"
#include "target/target.h"

namespace tsr {

// pass_emulated (format 2.1): the GPU source passed in the CPU emulator;
// never a hardware PASS (docs/emulator.md).
enum class ArchiveVerdict { not_run = 0, pass = 1, fail = 2, pass_emulated = 3 };
const char* archive_verdict_name(ArchiveVerdict v);   // "NOT_RUN", "PASS", "FAIL", "PASS_EMULATED"

// The oracle's result for one (kernel, target kind:arch).
struct OracleVerdictRecord {
  TargetName target;
  ArchiveVerdict verdict = ArchiveVerdict::not_run;
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;
  double budget_atol = 0.0;
  double budget_rtol = 0.0;
  uint64_t seed = 0;
  std::string reason;       // why NOT_RUN, or the first failing index for FAIL
  bool operator==(const OracleVerdictRecord&) const = default;
};

// A hardware qualification receipt bound to one variant (format 2.1, section
// RCPT, docs/archive-format.md): the receipt file's exact bytes, and the
// binding the runtime stub checks without parsing TOML. Admission
// (`tesserac admit`, `build --receipts`) attaches only receipts whose decoded
// fields match the variant exactly; `verify` re-checks that.
struct ArchiveReceipt {
  TargetName target;            // the variant's kind:arch
  std::string artifact_sha256;  // 64 lower-case hex digits: the variant's blob hash
  std::string bytes;            // the receipt file, byte for byte (signature trailer included)
  bool operator==(const ArchiveReceipt&) const = default;
};

struct ArchiveKernel {
  std::string name;         // C identifier, unique in the archive
  std::string identity;     // 64 lower-case hex digits
  std::string family;       // family_name(...)
  DType dtype = DType::f32; // storage dtype
  KernelAbi abi;
  std::vector<Artifact> variants;            // one per target kind:arch
  std::vector<OracleVerdictRecord> verdicts; // one per target kind:arch at most
  std::vector<ArchiveReceipt> receipts;      // any number per variant; sorted by (kind, arch, bytes)
};

struct ArchiveContents {
  std::map<std::string, std::string> metadata;   // e.g. tesserac.version
  std::vector<ArchiveKernel> kernels;
};

// Artifact kinds the format knows; the numbers are tsr_artifact_kind's.
int artifact_kind_tag(const std::string& kind);       // 0 when unknown
const char* artifact_kind_name(int tag);              // "" when unknown

// Field-by-field equality, ABI and artifact bytes included (tests, merge).
bool same_abi(const KernelAbi& a, const KernelAbi& b);
bool same_artifact(const Artifact& a, const Artifact& b);
bool same_kernel(const ArchiveKernel& a, const ArchiveKernel& b);

}  // namespace tsr
