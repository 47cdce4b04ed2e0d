// tesserac merge A.tfat B.tfat... -o OUT.tfat: the union of archives; a
// conflicting entry for the same kernel and target is an error.
#include <memory>

#include "archive/archive_merge.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "cli/commands.h"
#include "support/output_paths.h"

namespace tsr::cli {

namespace {
struct MergeOptions {
  std::vector<std::string> inputs;
  std::string output;
};
}  // namespace

RunFn register_merge(CLI::App& app) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand("merge", "Merge archives into one (conflicting entries are an error)");
  sub->add_option("archives", opts->inputs, "Input archives")->required();
  sub->add_option("-o,--output", opts->output, "The merged archive")->required();
  return [opts]() -> int {
    std::vector<CommandPath> archives;
    for (const std::string& path : opts->inputs) archives.push_back({"archive", path});
    if (Status distinct = check_output_paths(archives, {{"-o", opts->output}}); !distinct.ok()) return report(distinct.error());
    std::vector<NamedArchive> inputs;
    for (const std::string& path : opts->inputs) {
      Expected<ArchiveContents> contents = read_archive_file(path);
      // Verified (every rule, every blob's SHA-256) before any blob is copied.
      if (!contents) return report(contents.error());   // the message starts with the path
      inputs.push_back({path, std::move(*contents)});
    }
    Expected<ArchiveContents> merged = merge_archives(inputs);
    if (!merged) return report(merged.error());
    Status written = write_archive(*merged, opts->output);
    return written.ok() ? kExitOk : report(written.error());
  };
}

}  // namespace tsr::cli
