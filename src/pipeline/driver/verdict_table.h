// Verdict rows rendered: the table every command prints, the counts, and
// the --json document (docs/reports.md).
#pragma once

#include <string>
#include <vector>

#include "driver/verdict_row.h"

namespace tsr {

// One row per kernel x target, long reason tails shared by several rows as
// notes under the table, then the counts. With `group_not_run`, NOT_RUN rows
// are one line per reason instead ("not run: REASON: N variant(s): T1, T2"),
// for qualify, where most variants have no device on the host.
std::string render_verdict_table(const std::vector<VerdictRow>& rows, bool group_not_run = false);

struct VerdictCounts {
  int passed = 0, passed_emulated = 0, failed = 0, not_run = 0, compile_failed = 0;
};
VerdictCounts count_verdicts(const std::vector<VerdictRow>& rows);
std::string render_verdict_json(const std::vector<VerdictRow>& rows);

}  // namespace tsr
