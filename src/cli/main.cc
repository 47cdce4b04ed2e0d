// tesserac: the thin tool. It parses options and dispatches to a subcommand;
// the work happens in the four libraries under src/ (docs/architecture.md).
#include <iostream>
#include <map>

#include "cli/checked_stdout.h"
#include "cli/command_word.h"
#include "cli/commands.h"
#include "cli/option_policy.h"
#include "cli/process_setup.h"
#include "support/subprocess.h"

namespace tsr::cli {

int report_error(const std::string& message, int exit_code) {
  std::cerr << "tesserac: error: " << message << "\n";
  return exit_code;
}

int report(const Error& error) { return report_error(error.message(), exit_code(error.kind())); }

namespace {

int run_command_line(int argc, char** argv) {
  CLI::App app{"tesserac: ahead-of-time kernel compiler (specs -> x86/CUDA/HIP/XDNA artifacts, oracle-checked)"};
  app.set_version_flag("--version", std::string("tesserac ") + TESSERAC_VERSION);
  app.require_subcommand(1, 1);
  app.fallthrough(false);

  // The subcommand table, in the order `--help` lists them.
  std::map<CLI::App*, RunFn> table;
  auto add = [&](RunFn (*reg)(CLI::App&)) {
    const size_t before = app.get_subcommands({}).size();
    RunFn fn = reg(app);
    table[app.get_subcommands({})[before]] = std::move(fn);
  };
  add(register_emit);
  add(register_test);
  add(register_build);
  add(register_tune);
  add(register_inspect);
  add(register_verify);
  add(register_merge);
  add(register_embed);
  add(register_qualify);
  add(register_admit);
  add(register_targets);
  apply_option_policy(app);

  if (std::optional<int> answered = answer_command_word(app, argc, argv)) return *answered;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tesserac: error: " << e.what() << "\n";
    std::cerr << "run 'tesserac --help' for usage\n";
    return kExitUsage;
  }
  // A malformed TESSERAC_TOOL_TIMEOUT is refused before any work starts.
  if (Expected<uint64_t> timeout = tool_timeout_seconds(); !timeout) return report(timeout.error());
  for (const auto& [sub, run] : table)
    if (sub->parsed()) {
      try {
        return run();
      } catch (const std::exception& e) {
        return report_error(std::string("internal error: ") + e.what(), kExitToolchain);
      }
    }
  return kExitUsage;
}

}  // namespace
}  // namespace tsr::cli

int main(int argc, char** argv) {
  using namespace tsr::cli;
  prepare_process();
  check_standard_output();
  return finish_standard_output(run_command_line(argc, argv));
}
