// Machine-readable results of `build` and `test` for CI (docs/reports.md):
// the JSON build report (--report) and JUnit XML (--junit).
#pragma once

#include <string>
#include <vector>

#include "cache/compile_cache.h"
#include "driver/verdict_row.h"

namespace tsr {

struct ReportContext {
  std::string command;          // "build" or "test"
  unsigned jobs = 1;
  bool cache_enabled = false;
  std::string cache_dir;
  CacheStats cache_stats;
  double total_ms = 0.0;
};

// Row status for reports: "ok" (compiled, or checked from an archive),
// "compile_failed", "unavailable" (no toolchain), "unsupported".
std::string row_status(const VerdictRow& row);

std::string render_build_report(const std::vector<VerdictRow>& rows, const ReportContext& context);

// One <testcase> per kernel x target (classname the kernel, name the
// target, whatever the verdict): NOT_RUN is <skipped>, FAIL <failure>, a
// compile error <error>; PASS_EMULATED passes with its reason in
// <system-out>, and every case has a `verdict` property, so no CI view
// mistakes an emulated pass for hardware.
std::string render_junit(const std::vector<VerdictRow>& rows, const ReportContext& context);

}  // namespace tsr
