// The receipt options `admit` and `build` share: --receipts DIR...,
// --require-receipts[=TARGETS], --trusted-keys FILE, and applying them to an archive.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "archive/archive_contents.h"

namespace tsr::cli {

struct ReceiptOptions {
  std::vector<std::string> paths;     // receipt files or directories of *.toml
  // --require-receipts: "*" (every variant); --require-receipts=TARGETS:
  // comma-separated kinds ("x86") or kind:arch names ("cuda:sm_90") whose
  // variants must have a receipt. Repeatable; empty: nothing required.
  std::vector<std::string> require;
  std::string trusted_keys;
};

void add_receipt_options(CLI::App* sub, ReceiptOptions& options, bool required);

// Checks the options before any work: a --require-receipts target that is
// neither a registered kind nor a kind:arch name is a usage error.
int check_receipt_options(const ReceiptOptions& options);

// What admission attached, reported once the archive is written.
struct AdmissionTotals {
  bool ran = false;              // --receipts was given
  size_t attached = 0;           // attached by this run
  size_t already_attached = 0;   // the archive held them already
  size_t unmatched = 0;          // matched no variant (each was a warning)
};

// Loads, checks and attaches the receipts; reports unmatched receipts as
// warnings and every variant of a required target left without one as an
// error. Returns an exit code; prints no totals (a failed write would make them untrue).
int apply_receipts(const ReceiptOptions& options, ArchiveContents& contents, AdmissionTotals& totals);

// After the archive is written: "tesserac: N receipt(s) attached to OUT, M matched no variant".
void print_admission_totals(const AdmissionTotals& totals, const std::string& output);

}  // namespace tsr::cli
