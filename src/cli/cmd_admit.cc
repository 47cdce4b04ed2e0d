// tesserac admit ARCHIVE.tfat --receipts DIR... -o OUT.tfat
// [--require-receipts[=TARGETS]] [--trusted-keys FILE]: attaches the hardware receipts
// that match a variant exactly (docs/receipt-format.md, "Admission").
#include <iostream>
#include <memory>

#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "cli/command_files.h"
#include "cli/commands.h"
#include "cli/receipt_options.h"

namespace tsr::cli {

namespace {
struct AdmitOptions {
  std::string archive;
  std::string output;
  ReceiptOptions receipts;
};
}  // namespace

RunFn register_admit(CLI::App& app) {
  auto opts = std::make_shared<AdmitOptions>();
  CLI::App* sub = app.add_subcommand("admit", "Attach matching hardware receipts to an archive");
  sub->add_option("archive", opts->archive, "The .tfat archive")->required();
  sub->add_option("-o,--output", opts->output, "The archive to write, with the receipts attached")->required();
  add_receipt_options(sub, opts->receipts, /*required=*/true);
  return [opts]() -> int {
    std::vector<CommandPath> inputs = {{"archive", opts->archive}};
    for (const std::string& r : opts->receipts.paths) inputs.push_back({"--receipts", r});
    if (!opts->receipts.trusted_keys.empty()) inputs.push_back({"--trusted-keys", opts->receipts.trusted_keys});
    if (int rc = check_outputs(inputs, {{"-o", opts->output}}); rc != kExitOk) return rc;
    if (int rc = check_receipt_options(opts->receipts); rc != kExitOk) return rc;
    Expected<ArchiveContents> contents = read_archive_file(opts->archive);
    if (!contents) return report(contents.error());
    AdmissionTotals totals;
    if (int rc = apply_receipts(opts->receipts, *contents, totals); rc != kExitOk) return rc;
    Status written = write_archive(*contents, opts->output);
    if (!written.ok()) return report(written.error());
    print_admission_totals(totals, opts->output);
    return kExitOk;
  };
}

}  // namespace tsr::cli
