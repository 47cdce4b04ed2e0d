// Receipts for the receipt codec tests: valid ones that exercise every value
// spelling the writer has (u64 seeds, shortest floats, escaped strings,
// signatures), and their canonical bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "codecs/codec.h"
#include "receipts/receipt.h"
#include "support/sha256.h"

namespace tsr::testing {

inline Receipt x86_receipt() {
  Receipt r;
  r.kernel = "vec_add";
  r.identity = std::string(64, 'a');
  r.family = "elementwise";
  r.codec_version = 1;
  r.target = TargetName{"x86", "v3"};
  r.artifact_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  r.artifact_key = "x86:v3/clang-14.0.6/-O3 -march=x86-64-v3";
  r.toolchain = "clang 14.0.6";
  r.device = ReceiptDevice{"AMD EPYC 9B14 96-Core Processor", "AuthenticAMD", "x86-64-v4 avx2 avx512f", "6.1.0-18-amd64"};
  r.tesserac_version = "0.1.0";
  r.oracle.seed = 42;
  r.oracle.trials = 3;
  r.oracle.determinism_checked = true;
  r.oracle.max_abs_err = 0.0;
  r.oracle.max_rel_err = 0.0;
  r.oracle.budget_atol = 1e-6;
  r.oracle.budget_rtol = 1e-5;
  r.oracle.budget_use = 0.0;
  r.oracle.deciding_term = "absolute";
  r.oracle.trial_shapes = {ReceiptTrial{{{"N", 1}}}, ReceiptTrial{{{"N", 17}}}, ReceiptTrial{{{"N", 4096}}}};
  r.measurement = ReceiptMeasurement{"memfd+dlopen", 812.5, 200};
  r.qualified_at = "2026-12-01T14:00:00Z";
  return r;
}

// x86_receipt() bound exactly to `variant` of `kernel` (every admission field matches).
inline Receipt receipt_for(const ArchiveKernel& kernel, const Artifact& variant) {
  Receipt r = x86_receipt();
  r.kernel = kernel.name;
  r.identity = kernel.identity;
  r.family = kernel.family;
  r.codec_version = find_codec(*family_from_name(kernel.family))->version();
  r.target = variant.target;
  r.artifact_sha256 = sha256_hex(variant.bytes.data(), variant.bytes.size());
  r.artifact_key = variant.key;
  return r;
}

inline Receipt cuda_receipt() {
  Receipt r = x86_receipt();
  r.kernel = "gemm_bias_gelu";
  r.identity = "5f3a0c9e1b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a";
  r.family = "matmul";
  r.target = TargetName{"cuda", "sm_90"};
  r.artifact_key = "cuda:sm_90/nvrtc-13.0/cubin";
  r.toolchain = "NVRTC 13.0 (ptxas 13.0.48)";
  r.device = ReceiptDevice{"NVIDIA H200", "0x10de", "sm_90", "580.65.06"};
  r.oracle.seed = UINT64_MAX;   // above TOML's largest integer
  r.oracle.trials = 4;
  r.oracle.determinism_checked = false;
  r.oracle.max_abs_err = 0.1 + 0.2;       // 0.30000000000000004: needs all 17 digits
  r.oracle.max_rel_err = 5e-324;          // the smallest subnormal
  r.oracle.budget_atol = 2e-2;
  r.oracle.budget_rtol = 1e-2;
  r.oracle.budget_use = 0.987654321;
  r.oracle.deciding_term = "relative";
  r.oracle.trial_shapes = {ReceiptTrial{{{"M", 1}}}, ReceiptTrial{{{"M", 127}}}, ReceiptTrial{{{"M", 128}}},
                           ReceiptTrial{{{"M", 0}}}};
  r.measurement = ReceiptMeasurement{"cubin", 1.5e7, 50};
  r.qualified_at = "2027-02-28T23:59:59Z";
  return r;
}

// Static shapes (no runtime dimensions), odd strings and a signature trailer.
inline Receipt signed_receipt() {
  Receipt r = x86_receipt();
  r.kernel = "rms_norm_4096";
  r.family = "rowwise";
  r.target = TargetName{"x86", "v4"};
  r.device.name = "Quote \" backslash \\ tab \t newline \n bell \x07 del \x7f caf\xc3\xa9 \xe2\x82\xac";
  r.device.driver = "";
  r.oracle.seed = 0;
  r.oracle.max_abs_err = 1e300;
  r.oracle.budget_use = 1.0;
  r.oracle.trial_shapes = {ReceiptTrial{}, ReceiptTrial{}};
  r.measurement.median_latency_ns = 3.0;
  r.signature = ReceiptSignature{std::string(64, 'c'), std::string(128, 'd')};
  return r;
}

inline std::vector<Receipt> sample_receipts() { return {x86_receipt(), cuda_receipt(), signed_receipt()}; }

}  // namespace tsr::testing
