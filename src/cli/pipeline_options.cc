#include "cli/pipeline_options.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli/terminal_progress.h"
#include "support/decimal.h"
#include "support/subprocess.h"
#include "support/tool_version_memo.h"

namespace tsr::cli {

void add_pipeline_options(CLI::App* sub, PipelineOptions& options) {
  sub->add_option("--cache-dir", options.cache_dir,
                  "Compile cache directory (default: TESSERAC_CACHE_DIR, else $XDG_CACHE_HOME/tesserac or "
                  "~/.cache/tesserac)");
  sub->add_flag("--no-cache", options.no_cache, "Neither read nor write the compile cache");
  sub->add_option_function<std::string>(
         "--cache-max-size",
         [&options](const std::string& text) {
           const std::optional<uint64_t> bytes = parse_cache_size(text);
           if (!bytes)
             throw CLI::ValidationError("--cache-max-size", "invalid size '" + text +
                                                                "' (expected a positive number of bytes, with an "
                                                                "optional K, M or G suffix)");
           options.cache_max_bytes = *bytes;
         },
         "Evict the least recently used cache entries beyond this size (default 2G)")
      ->type_name("SIZE");
  sub->add_option_function<std::string>(
         "-j,--jobs",
         [&options](const std::string& text) {
           const std::optional<uint64_t> n = parse_decimal_u64(text);
           if (!n || *n == 0 || *n > 1024)
             throw CLI::ValidationError("-j", "invalid job count '" + text + "' (expected 1 to 1024)");
           options.jobs = static_cast<unsigned>(*n);
         },
         "Compile this many kernel-targets at once (default: the number of cores)")
      ->type_name("N");
  sub->add_flag("-v,--verbose", options.verbose, "Print every toolchain command and compile cache hit");
  sub->add_flag("-q,--quiet", options.quiet, "Print errors only (no progress, no verdict table)");
  sub->add_option("--report", options.report, "Also write a JSON build report to FILE (docs/reports.md)");
  sub->add_option("--junit", options.junit, "Also write the verdicts as JUnit XML to FILE");
  add_require_verdict_option(sub, options.require_verdict);
}

void add_pipeline_outputs(const PipelineOptions& options, std::vector<CommandPath>& outputs) {
  if (!options.report.empty()) outputs.push_back({"--report", options.report});
  if (!options.junit.empty()) outputs.push_back({"--junit", options.junit});
}

Pipeline start_pipeline(const PipelineOptions& options) {
  Pipeline p;
  p.jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (options.verbose) set_log_commands(true);
  p.progress = make_terminal_progress(options.quiet, options.verbose);
  // --no-cache, then --cache-dir, then TESSERAC_NO_CACHE, then
  // TESSERAC_CACHE_DIR, then the XDG default (docs/cache.md).
  if (options.no_cache) return p;
  std::string dir = options.cache_dir;
  if (dir.empty()) {
    if (const char* off = std::getenv("TESSERAC_NO_CACHE"); off && *off && std::string(off) != "0") return p;
    if (const char* env = std::getenv("TESSERAC_CACHE_DIR"); env && *env) dir = env;
  }
  if (dir.empty()) dir = default_cache_dir();
  if (dir.empty()) return p;
  Expected<CompileCache> cache = CompileCache::open(dir, options.cache_max_bytes);
  if (!cache) {
    std::cerr << "tesserac: warning: " << cache.error().message() << "; building without the compile cache\n";
    return p;
  }
  p.cache.emplace(std::move(*cache));
  set_tool_version_memo_dir(p.cache->dir() + "/v1/tools");
  return p;
}

void finish_pipeline(const PipelineOptions& options, Pipeline& p) {
  if (!p.cache) return;
  if (p.cache->stats().stored > 0) p.cache->evict();
  if (options.verbose) {
    const CacheStats& s = p.cache->stats();
    std::cerr << "tesserac: compile cache " << p.cache->dir() << ": " << s.hits << " hits, " << s.misses
              << " misses, " << s.stored << " stored, " << s.corrupt << " corrupt entries dropped, " << s.evicted
              << " evicted\n";
  }
}

}  // namespace tsr::cli
