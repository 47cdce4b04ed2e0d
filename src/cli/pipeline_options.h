// Options of the compile-and-check pipeline shared by `build` and `test`:
// the compile cache, -j, what is printed while it runs (-v, -q), and the
// build report and JUnit files, the verdict a CI job requires (docs/cli.md, docs/cache.md, docs/reports.md).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/compile_cache.h"
#include "cli/verdict_gate.h"
#include "progress/build_progress.h"
#include "driver/pass_options.h"
#include "support/output_paths.h"

namespace tsr::cli {

struct PipelineOptions {
  std::string cache_dir;           // --cache-dir; else TESSERAC_CACHE_DIR; else default_cache_dir()
  bool no_cache = false;           // --no-cache
  uint64_t cache_max_bytes = kDefaultCacheMaxBytes;   // --cache-max-size
  unsigned jobs = 0;               // -j N; 0: the number of cores
  bool verbose = false;            // -v: every toolchain command and cache hit
  bool quiet = false;              // -q: errors only
  std::string report;              // --report FILE (JSON)
  std::string junit;               // --junit FILE (JUnit XML)
  RequiredVerdict require_verdict = RequiredVerdict::any;   // --require-verdict pass|emulated
};

void add_pipeline_options(CLI::App* sub, PipelineOptions& options);

// What the options set up for one run: the cache (null with --no-cache or
// no cache directory) and the progress printer.
struct Pipeline {
  std::optional<CompileCache> cache;
  std::unique_ptr<BuildProgress> progress;
  unsigned jobs = 1;
  // Points the qualify options at this pipeline's cache, jobs and progress.
  void configure(PassOptions& q) {
    q.cache = cache ? &*cache : nullptr;
    q.jobs = jobs;
    q.progress = progress.get();
  }
};

// The --report and --junit paths given, as outputs to check before any work.
void add_pipeline_outputs(const PipelineOptions& options, std::vector<CommandPath>& outputs);

// Opens the cache; a cache directory that cannot be created is a warning
// and a build without cache, never a failed build.
Pipeline start_pipeline(const PipelineOptions& options);

// After the run: evicts beyond the size limit; with -v, prints the counts.
void finish_pipeline(const PipelineOptions& options, Pipeline& pipeline);

}  // namespace tsr::cli
