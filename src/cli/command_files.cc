#include "cli/command_files.h"

#include <set>

#include "cli/commands.h"
#include "loader/spec_loader.h"

namespace tsr::cli {

std::vector<CommandPath> spec_input_paths(const std::vector<std::string>& specs) {
  std::vector<CommandPath> inputs;
  std::set<std::string> seen;
  auto add = [&](const std::string& path) {
    if (seen.insert(path).second) inputs.push_back({"spec", path});
  };
  for (const std::string& s : specs) add(s);   // a directory's mtime tracks added and removed specs
  DiagnosticEngine ignored;   // load_specs reports the same problems
  for (const std::string& f : expand_spec_paths(specs, ignored)) add(f);
  return inputs;
}

int check_outputs(const std::vector<CommandPath>& inputs, const std::vector<CommandPath>& outputs) {
  Status checked = check_output_paths(inputs, outputs);
  return checked.ok() ? kExitOk : report(checked.error());
}

void add_error_limit_option(CLI::App* sub, size_t& limit) {
  sub->add_option("--error-limit", limit,
                  "Errors shown per spec file before stopping (default " + std::to_string(kDefaultErrorLimit) +
                      "; 0: no limit)")
      ->check(CLI::Range(size_t{0}, kMaxErrorLimit));
}

}  // namespace tsr::cli
