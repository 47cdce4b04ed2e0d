// Explicit, logged subprocess calls for compile steps (STYLE.md §7).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr {

struct ProcessResult {
  int exit_code = -1;      // -1: did not run to completion (see `error`); 128+N: killed by signal N
  std::string output;      // stdout and stderr interleaved (at most kMaxCapturedOutput bytes)
  std::string error;       // why it did not run to completion: cannot start, timed out, cannot wait
};

// TESSERAC_TOOL_TIMEOUT: whole seconds one toolchain command may run before its
// process group is killed; 0 means no limit (docs/cli.md).
inline constexpr uint64_t kDefaultToolTimeoutSeconds = 600;
inline constexpr uint64_t kMaxToolTimeoutSeconds = 604800;   // one week
// Output kept from one command; the rest is read and dropped so the tool never blocks.
inline constexpr size_t kMaxCapturedOutput = 1 << 20;

// The timeout from TESSERAC_TOOL_TIMEOUT, the default when unset, or a usage
// error naming the value.
Expected<uint64_t> tool_timeout_seconds();

// Runs argv[0] (searched in PATH when it has no '/') without a shell, with
// stdin on /dev/null, in a process group of its own, with SIGCHLD and SIGPIPE
// at their defaults and no file descriptor but 0, 1, 2 inherited.
// `timeout_seconds` 0 means no limit; the one-argument form uses
// tool_timeout_seconds().
ProcessResult run_process(const std::vector<std::string>& argv);
ProcessResult run_process(const std::vector<std::string>& argv, uint64_t timeout_seconds);

// First line of `tool --version`-style output, or empty when the tool fails.
std::string first_line(const std::string& text);

// Absolute path of an executable found in PATH, or empty.
std::string find_in_path(const std::string& name);

// When TESSERAC_VERBOSE is set or set_log_commands(true) was called (-v),
// compile steps log their command lines to stderr.
void log_command(const std::vector<std::string>& argv);
void set_log_commands(bool on);

}  // namespace tsr
