// The subcommand table: each subcommand registers its options on the app and
// a run function. Everything the commands do lives in the libraries.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr::cli {

// Exit codes (docs/cli.md): never renumber. The error kinds' codes are
// exit_code's (support/error.h), named here for the commands' own checks.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = exit_code(ErrorKind::invalid_input);
inline constexpr int kExitUsage = exit_code(ErrorKind::usage);
inline constexpr int kExitToolchain = exit_code(ErrorKind::toolchain);
static_assert(kExitInvalid == 1 && kExitUsage == 2 && kExitToolchain == 3, "docs/cli.md's exit codes");

using RunFn = std::function<int()>;

// Each registers a subcommand on `app` and returns its run function, which
// main() calls when that subcommand was chosen.
RunFn register_emit(CLI::App& app);
RunFn register_test(CLI::App& app);
RunFn register_build(CLI::App& app);
RunFn register_tune(CLI::App& app);   // cmd_build.cc: build with the arbiter, printing its tables
RunFn register_targets(CLI::App& app);
RunFn register_inspect(CLI::App& app);
RunFn register_verify(CLI::App& app);
RunFn register_merge(CLI::App& app);
RunFn register_embed(CLI::App& app);
RunFn register_qualify(CLI::App& app);
RunFn register_admit(CLI::App& app);

// Shared helpers.
int report_error(const std::string& message, int exit_code);
int report(const Error& error);

}  // namespace tsr::cli
