// Explicit, logged subprocess calls for compile steps (STYLE.md §7).
#pragma once

#include <string>
#include <vector>

namespace tsr {

struct ProcessResult {
  int exit_code = -1;      // -1: could not start; 128+N: killed by signal N
  std::string output;      // stdout and stderr interleaved
};

// Runs argv[0] (searched in PATH when it has no '/') without a shell.
ProcessResult run_process(const std::vector<std::string>& argv);

// First line of `tool --version`-style output, or empty when the tool fails.
std::string first_line(const std::string& text);

// Absolute path of an executable found in PATH, or empty.
std::string find_in_path(const std::string& name);

// When TESSERAC_VERBOSE is set, compile steps log their command lines to stderr.
void log_command(const std::vector<std::string>& argv);

}  // namespace tsr
