#include "cli/spec_selection.h"

#include <cstdint>
#include <iostream>
#include <optional>

#include "cli/command_files.h"
#include "cli/commands.h"
#include "driver/plan.h"
#include "driver/spec_loading.h"
#include "support/decimal.h"
#include "support/file_io.h"

namespace tsr::cli {

void add_spec_selection_options(CLI::App* sub, SpecSelection& selection) {
  sub->add_option("specs", selection.specs, "Spec files or directories of *.yaml specs")->required();
  sub->add_option("-t,--target", selection.targets, "Targets (comma-separated or repeated); default: all");
  sub->add_option("--json", selection.json, "Also write the verdicts as JSON to FILE");
  add_seed_option(sub, selection.seed);
  add_error_limit_option(sub, selection.error_limit);
  sub->add_flag("--emulate", selection.emulate,
                "Run cuda and hip targets that have no device in the CPU emulator: PASS_EMULATED or FAIL, "
                "never a hardware PASS (docs/emulator.md)");
}

void add_seed_option(CLI::App* sub, uint64_t& seed) {
  sub->add_option_function<std::string>(
         "--seed",
         [&seed](const std::string& text) {
           const std::optional<uint64_t> value = parse_decimal_u64(text);
           if (!value)
             throw CLI::ValidationError("--seed", "invalid seed '" + text +
                                                      "' (expected a decimal integer from 0 to " +
                                                      std::to_string(UINT64_MAX) + ")");
           seed = *value;
         },
         "Oracle input seed, decimal 0..2^64-1 (printed with every verdict)")
      ->type_name("N");
}

std::optional<LoadedSelection> load_selection(const SpecSelection& selection, int& exit_code) {
  Expected<std::vector<TargetName>> targets = parse_target_list(selection.targets);
  if (!targets) {
    exit_code = report(targets.error());
    return std::nullopt;
  }
  DiagnosticEngine diag(&std::cerr, selection.error_limit);
  LoadedSelection loaded{load_specs(selection.specs, diag), std::move(*targets)};
  if (diag.has_errors()) {
    exit_code = kExitInvalid;
    return std::nullopt;
  }
  return loaded;
}

int write_verdict_json(const SpecSelection& selection, const std::string& json) {
  if (selection.json.empty()) return kExitOk;
  Status written = write_file_atomic(selection.json, json);
  return written.ok() ? kExitOk : report(written.error());
}

}  // namespace tsr::cli
