// --require-verdict LEVEL of `build` and `test`: the weakest evidence a CI
// job accepts for every kernel x target it planned (docs/cli.md). Verdicts
// order NOT_RUN < PASS_EMULATED < PASS; FAIL always fails on its own.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "driver/verdict_row.h"

namespace tsr::cli {

enum class RequiredVerdict { any, emulated, pass };

void add_require_verdict_option(CLI::App* sub, RequiredVerdict& required);

// Prints one error per row whose verdict is weaker than `required` (FAIL
// rows are left to the oracle's own failure) and one per kernel the plan
// gave no target (`untested`), then a summary ending in `tail` (e.g. ";
// nothing written"). Returns kExitInvalid if it printed any, else kExitOk.
int check_required_verdict(RequiredVerdict required, const std::vector<VerdictRow>& rows,
                           const std::vector<std::string>& untested, const std::string& tail);

}  // namespace tsr::cli
