// tesserac verify FILE: structure and every hash; exit 1 with the first problem.
#include <iostream>
#include <memory>

#include "archive/archive_reader.h"
#include "cli/commands.h"

namespace tsr::cli {

RunFn register_verify(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("verify", "Check a .tfat archive's structure and every hash");
  sub->add_option("archive", *path, "The archive")->required();
  return [path]() -> int {
    Status verified = verify_archive_file(*path);
    if (!verified.ok()) return report(verified.error());   // the message starts with the path
    std::cout << *path << ": ok\n";
    return kExitOk;
  };
}

}  // namespace tsr::cli
