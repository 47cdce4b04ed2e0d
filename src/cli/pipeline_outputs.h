// Writes --report and --junit for `build` and `test` (docs/reports.md).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cli/pipeline_options.h"
#include "driver/verdict_row.h"

namespace tsr::cli {

// Returns an exit code: kExitOk, or the write error's.
int write_pipeline_outputs(const PipelineOptions& options, const Pipeline& pipeline, const std::string& command,
                           const std::vector<VerdictRow>& rows, std::chrono::steady_clock::time_point started);

}  // namespace tsr::cli
