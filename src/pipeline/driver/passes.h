// The passes every command that compiles or launches runs over its Job list
// (docs/architecture.md, "The pass list"). build, test and tune run the whole
// list and differ only in their PassOptions; `test --archive` runs it with
// the artifacts taken from the archive, so only `qualify` has work to do.
// build then assembles and writes what the rows hold (cli/cmd_build.cc).
#pragma once

#include <vector>

#include "driver/pass_options.h"
#include "driver/plan.h"
#include "driver/verdict_row.h"

namespace tsr {

// One row per job, in job order: every pass of the list, in order.
std::vector<VerdictRow> run_passes(const std::vector<Job>& jobs, const PassOptions& options);

// The passes' names in the order run_passes runs them (docs/architecture.md
// lists them; tests/unit/pass_list_doc_test.cc keeps the two the same).
std::vector<const char*> pass_names();

}  // namespace tsr
