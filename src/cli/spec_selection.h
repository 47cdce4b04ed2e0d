// Options and loading shared by the commands that take SPEC|DIR... -t ...
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracle/oracle.h"
#include "spec/kernel_spec.h"
#include "support/diagnostics.h"
#include "target/target.h"

namespace tsr::cli {

struct SpecSelection {
  std::vector<std::string> specs;
  std::vector<std::string> targets;
  std::string json;
  uint64_t seed = OracleOptions{}.seed;
  size_t error_limit = kDefaultErrorLimit;
  bool emulate = false;   // --emulate: GPU targets without a device run in the CPU emulator
};

void add_spec_selection_options(CLI::App* sub, SpecSelection& selection);

// --seed N: the oracle's input seed, decimal 0..2^64-1 (checked: CLI11 would wrap -1).
void add_seed_option(CLI::App* sub, uint64_t& seed);

struct LoadedSelection {
  std::vector<KernelSpec> specs;
  std::vector<TargetName> targets;   // empty: not narrowed by -t
};

// Parses -t and loads every spec, printing diagnostics. On failure returns
// nullopt and sets `exit_code`.
std::optional<LoadedSelection> load_selection(const SpecSelection& selection, int& exit_code);

// Writes the verdict JSON when --json was given; returns an exit code.
int write_verdict_json(const SpecSelection& selection, const std::string& json);

}  // namespace tsr::cli
