// What the writing commands share about their files: the inputs a spec
// selection reads, the check that no output overwrites one of them (or
// another output), and the --error-limit option of the spec-reading commands.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "support/output_paths.h"

namespace tsr::cli {

// The spec paths as given and every spec file found in given directories
// (what a run reads, and what a depfile lists).
std::vector<CommandPath> spec_input_paths(const std::vector<std::string>& specs);

// kExitOk, or the usage error check_output_paths reports (exit 2).
int check_outputs(const std::vector<CommandPath>& inputs, const std::vector<CommandPath>& outputs);

// --error-limit N: errors shown per spec file (0: all), like clang's
// -ferror-limit. Checked, since CLI11 would wrap -1 to 2^64-1.
inline constexpr size_t kMaxErrorLimit = 1000000;
void add_error_limit_option(CLI::App* sub, size_t& limit);

}  // namespace tsr::cli
