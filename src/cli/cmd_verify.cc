// tesserac verify FILE: structure, every hash and every receipt; exit 1 with the first problem.
#include <iostream>
#include <memory>

#include "archive/archive_reader.h"
#include "archive/verify_receipts.h"
#include "cli/commands.h"

namespace tsr::cli {

RunFn register_verify(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("verify", "Check a .tfat archive's structure and every hash");
  sub->add_option("archive", *path, "The archive")->required();
  return [path]() -> int {
    // read_archive_file runs the stub's validator on every byte (as
    // verify_archive_file does), then the receipts' own bytes are checked.
    Expected<ArchiveContents> contents = read_archive_file(*path);
    if (!contents.ok()) return report(contents.error());   // the message starts with the path
    DiagnosticEngine diag(&std::cerr);
    Status receipts = verify_receipts(*contents, *path, diag);
    if (!receipts.ok()) return report_error(*path + ": " + receipts.error().message(), kExitInvalid);
    std::cout << *path << ": ok\n";
    return kExitOk;
  };
}

}  // namespace tsr::cli
