#include "cli/pipeline_outputs.h"

#include "cli/commands.h"
#include "driver/build_report.h"
#include "support/file_io.h"

namespace tsr::cli {

int write_pipeline_outputs(const PipelineOptions& options, const Pipeline& pipeline, const std::string& command,
                           const std::vector<VerdictRow>& rows, std::chrono::steady_clock::time_point started) {
  if (options.report.empty() && options.junit.empty()) return kExitOk;
  ReportContext context;
  context.command = command;
  context.jobs = pipeline.jobs;
  context.cache_enabled = pipeline.cache.has_value();
  if (pipeline.cache) {
    context.cache_dir = pipeline.cache->dir();
    context.cache_stats = pipeline.cache->stats();
  }
  context.total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (!options.report.empty())
    if (Status s = write_file_atomic(options.report, render_build_report(rows, context)); !s.ok()) return report(s.error());
  if (!options.junit.empty())
    if (Status s = write_file_atomic(options.junit, render_junit(rows, context)); !s.ok()) return report(s.error());
  return kExitOk;
}

}  // namespace tsr::cli
