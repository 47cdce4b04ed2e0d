#include "cli/command_word.h"

#include <iostream>

#include "cli/commands.h"
#include "support/suggest.h"

namespace tsr::cli {

namespace {

const CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

int unknown_subcommand(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names{"help"};
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  std::cerr << "tesserac: error: unknown subcommand '" << word << "'" << did_you_mean(word, names) << "\n"
            << "run 'tesserac --help' for usage\n";
  return kExitUsage;
}

}  // namespace

std::optional<int> answer_command_word(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string word = argv[1];
  if (word != "help") {
    if (find_subcommand(app, word)) return std::nullopt;
    return unknown_subcommand(app, word);
  }
  if (argc > 3) {
    std::cerr << "tesserac: error: 'help' takes at most one subcommand\n"
              << "run 'tesserac --help' for usage\n";
    return kExitUsage;
  }
  // Usage lines as `--help` prints them, after the program name CLI11 takes from argv[0].
  if (argc == 2) {
    std::cout << app.get_formatter()->make_help(&app, argv[0], CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  const CLI::App* sub = find_subcommand(app, argv[2]);
  if (!sub) return unknown_subcommand(app, argv[2]);
  std::cout << sub->help(argv[0]);
  return kExitOk;
}

}  // namespace tsr::cli
