#include "driver/emulated_oracle.h"

#include <cassert>

#include "cache/compile_cache.h"
#include "support/sha256.h"
#include "emulator/emulator.h"
#include "oracle/emulated_report.h"
#include "registry/registry.h"

namespace tsr {

namespace {

// A target's place in the catalogue (all_target_names), the order that picks
// a group's canonical job.
size_t catalogue_rank(const TargetName& target) {
  static const std::vector<TargetName> names = all_target_names();
  for (size_t r = 0; r < names.size(); ++r)
    if (names[r] == target) return r;
  return names.size();
}

}  // namespace

EmulatedOracle::EmulatedOracle(const std::vector<Job>& jobs, const PassOptions& options)
    : jobs_(jobs), options_(options) {}

void EmulatedOracle::add(size_t i, const std::string& identity, const Expected<std::string>& source, bool use_cache) {
  Member& m = members_[i];
  m.identity = identity;
  m.use_cache = use_cache;
  if (!source) {
    m.emit_error = source.error().message();
    return;
  }
  m.source = *source;
  m.group = identity + ":" + sha256_hex(m.source);
  auto [it, first] = groups_.try_emplace(m.group);
  assert(!it->second.result && "every job is added before the first qualify()");
  const size_t rank = catalogue_rank(jobs_[i].target);
  const size_t held = catalogue_rank(jobs_[it->second.canonical].target);
  if (first || rank < held || (rank == held && i < it->second.canonical)) it->second.canonical = i;
}

void EmulatedOracle::qualify(size_t i, VerdictRow& row) {
  const Member& m = members_.at(i);
  if (!m.emit_error.empty()) {
    row.report = not_run("emulator: " + m.emit_error, *jobs_[i].spec, options_.seed);
    return;
  }
  Group& g = groups_.at(m.group);
  if (!g.result) g.result = emulate(g.canonical);
  row.report = g.result->report;
  row.route = g.result->route;
  row.verdict_cached = g.result->cached;
  if (g.canonical != i)
    row.report.reason += " (source byte-identical to " + jobs_[g.canonical].target.str() + "'s, emulated once)";
}

// The oracle on the emulator for job i, or the compile cache's record of the
// same pass: same program, kernel, target, source, seed and TSR_*/TESSERAC_*
// environment (docs/cache.md).
EmulatedOracle::Result EmulatedOracle::emulate(size_t i) {
  const Job& job = jobs_[i];
  const Member& m = members_.at(i);
  const Target& target = *job.impl;
  std::string key;
  if (m.use_cache && options_.cache) {
    ToolchainInfo emulator;
    emulator.path = "tesserac CPU emulator";
    const std::string source_sha256 = sha256_hex(m.source);
    const std::string source_key = artifact_cache_key(m.identity, job.target, emulator, source_sha256);
    key = verdict_cache_key(source_key, source_sha256, target.device(job.target.arch), options_.seed, true);
    if (std::optional<CachedVerdict> hit = options_.cache->find_verdict(key))
      return Result{hit->report, hit->route, true};
  }
  OracleOptions oracle_options;
  oracle_options.seed = options_.seed;
  const std::unique_ptr<Target> emulator = target.make_emulated();
  const cuda::emu::EmulatedReport emulated =
      cuda::emu::emulate_oracle(*emulator, *job.spec, job.target.arch, m.source, oracle_options);
  Result result{emulated.oracle, "", false};
  if (result.report.verdict != Verdict::not_run) result.route = "CPU emulator: " + emulated.toolchain;
  if (!key.empty()) options_.cache->store_verdict(key, {result.report, result.route});
  return result;
}

}  // namespace tsr
