// The receipt options `admit` and `build` share: --receipts DIR...,
// --require-receipts, --trusted-keys FILE, and applying them to an archive.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "archive/archive_contents.h"

namespace tsr::cli {

struct ReceiptOptions {
  std::vector<std::string> paths;   // receipt files or directories of *.toml
  bool require = false;
  std::string trusted_keys;
};

void add_receipt_options(CLI::App* sub, ReceiptOptions& options, bool required);

// Loads, checks and attaches the receipts; reports unmatched receipts as
// warnings and, with --require-receipts, every variant left without one as
// an error. Returns an exit code.
int apply_receipts(const ReceiptOptions& options, ArchiveContents& contents);

}  // namespace tsr::cli
