// A hardware qualification receipt (DESIGN.md §5, docs/receipt-format.md):
// one kernel identity, on one target kind:arch, with one exact artifact,
// passed the oracle on real hardware. Receipts are TOML, written and read
// here only; the archive carries their exact bytes (RCPT section) and the
// runtime stub trusts only the binding (kernel, target, artifact SHA-256).
//
// Only a hardware PASS makes a receipt: PASS_EMULATED, NOT_RUN and FAIL
// never do, and the decoder refuses a receipt whose verdict is not PASS.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "target/target.h"

namespace tsr {

constexpr int kReceiptFormatVersion = 1;

struct ReceiptDevice {
  std::string name;          // "NVIDIA H200", "AMD EPYC 9B14 96-Core Processor"
  std::string vendor;        // PCI vendor id "0x10de" for GPUs, CPUID vendor "AuthenticAMD" for CPUs
  std::string capability;    // "sm_90", "gfx90a:xnack-", or the CPU's level and features "x86-64-v4 avx512f ..."
  std::string driver;        // GPU driver version ("12.4"), or the OS kernel release for CPUs
};

// One oracle trial's runtime dimensions (name -> value), in ABI scalar order.
struct ReceiptTrial {
  std::vector<std::pair<std::string, int64_t>> dims;
  bool operator==(const ReceiptTrial&) const = default;
};

struct ReceiptOracle {
  std::string verdict = "PASS";   // the only value a valid receipt holds
  uint64_t seed = 0;
  int trials = 0;
  bool determinism_checked = false;
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;
  double budget_atol = 0.0;
  double budget_rtol = 0.0;
  double budget_use = 0.0;
  std::string deciding_term;      // "absolute" | "relative"
  std::vector<ReceiptTrial> trial_shapes;
};

// What measured the kernel on the device (DESIGN.md §5: latency and route).
struct ReceiptMeasurement {
  std::string route;              // who launched it, e.g. "libtesserart memfd+dlopen", "libtesserart cubin"
  double median_latency_ns = 0.0; // median of the timed launches at the largest trial
  int launches = 0;
};

// An Ed25519 signature over the receipt's canonical bytes (everything the
// writer produces without the signature trailer); see receipt_signature.h.
struct ReceiptSignature {
  std::string key_id;             // hex SHA-256 of the raw 32-byte public key
  std::string signature_hex;      // 64 bytes, lower-case hex
};

struct Receipt {
  int format_version = kReceiptFormatVersion;
  // [kernel]
  std::string kernel;             // spec name
  std::string identity;           // 64 lower-case hex digits (kernel_identity)
  std::string family;             // family_name(...)
  int codec_version = 0;          // FamilyCodec::version()
  // [target]
  TargetName target;
  // [artifact]
  std::string artifact_sha256;    // 64 lower-case hex digits of the variant's blob bytes
  std::string artifact_key;       // Artifact::key
  std::string toolchain;          // Artifact::toolchain (tool name and exact version)
  // [device]
  ReceiptDevice device;
  // [tesserac]
  std::string tesserac_version;
  // [oracle], [measurement]
  ReceiptOracle oracle;
  ReceiptMeasurement measurement;
  // RFC 3339 UTC, e.g. "2026-12-01T14:00:00Z" (qualify honours SOURCE_DATE_EPOCH).
  std::string qualified_at;
  std::optional<ReceiptSignature> signature;
};

// The canonical TOML bytes (signature trailer included when present).
// Deterministic: the same Receipt gives the same bytes, byte for byte.
std::string write_receipt(const Receipt& receipt);

// Decodes one receipt file with the closed receipt codec. Every error of the
// file is reported to `diag` at file:line:col with a caret (unknown keys,
// wrong types, bad enums, missing keys, malformed hashes, unknown format
// versions, a verdict other than PASS); returns nullopt when any was.
std::optional<Receipt> decode_receipt(const std::string& text, const std::string& file,
                                      DiagnosticEngine& diag);

// The file name qualify writes for a receipt: "<kernel>.<kind>-<arch>.<sha256[0:12]>.receipt.toml".
std::string receipt_file_name(const Receipt& receipt);

}  // namespace tsr
