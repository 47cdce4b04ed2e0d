// Rules every option of every subcommand follows, applied in one place so a
// new option cannot forget them.
#pragma once

#include <CLI/CLI.hpp>

namespace tsr::cli {

// - An option takes exactly one value per occurrence (repeat it, or use a
//   comma-separated list where the option allows one), so `build -t x86:v4
//   SPEC -o X` never swallows SPEC into -t.
// - No value, of an option or a positional, may be empty: '' as a path or a
//   target would otherwise quietly mean "none" or "all".
void apply_option_policy(CLI::App& app);

}  // namespace tsr::cli
