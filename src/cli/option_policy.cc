#include "cli/option_policy.h"

namespace tsr::cli {

void apply_option_policy(CLI::App& app) {
  const CLI::Validator non_empty(
      [](std::string& value) { return value.empty() ? std::string("empty value") : std::string(); }, "", "non-empty");
  for (CLI::App* sub : app.get_subcommands({}))
    for (CLI::Option* option : sub->get_options()) {
      if (option->get_items_expected_max() == 0) continue;   // a flag
      if (option->nonpositional()) option->allow_extra_args(false);
      option->check(non_empty);
    }
}

}  // namespace tsr::cli
