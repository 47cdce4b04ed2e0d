// The first word of the command line, answered before CLI11 parses it:
// CLI11 reports both `tesserac help` and `tesserac biuld` as "A subcommand is
// required", which names neither the word nor what was meant.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace tsr::cli {

// `tesserac help [SUBCOMMAND]` prints that help (exit 0, like git and cargo);
// a first word that is no subcommand is a usage error naming it, with a "did
// you mean" where one is close. nullopt: CLI11 parses the line as usual.
std::optional<int> answer_command_word(const CLI::App& app, int argc, char** argv);

}  // namespace tsr::cli
