#include "driver/qualify.h"

#include "oracle/compare.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "driver/compile.h"
#include "driver/stub_routed_target.h"
#include "tesserart.h"
#include "identity/identity.h"
#include "oracle/compare.h"
#include "support/sha256.h"
#include "targets/cuda/emulator/emulator.h"
#include "targets/registry.h"

namespace tsr {

namespace {

// The archive's variant of `job` checked through the stub, or why it cannot be.
void qualify_from_archive(const Job& job, const Target& target, const QualifyOptions& options, VerdictRow& row) {
  size_t index = 0;
  tsr_kernel_info info{};
  if (tsr_archive_find_kernel(options.archive, job.spec->name.c_str(), &index) != TSR_OK ||
      tsr_archive_kernel_at(options.archive, index, &info) != TSR_OK) {
    row.report = not_run("archive has no kernel '" + job.spec->name + "'", *job.spec, options.seed);
    return;
  }
  if (row.identity != info.identity) {
    row.report = not_run("", *job.spec, options.seed);
    row.report.verdict = Verdict::fail;
    row.report.reason = "archive kernel identity " + std::string(info.identity).substr(0, 12) +
                        "… differs from the spec's " + row.identity.substr(0, 12) + "…";
    return;
  }
  bool found = false;
  for (size_t v = 0; v < info.variant_count && !found; ++v) {
    tsr_variant_info vi{};
    found = tsr_kernel_variant_at(options.archive, index, v, &vi) == TSR_OK && job.target.kind == vi.target_kind &&
            job.target.arch == vi.arch;
  }
  if (!found) {
    row.report = not_run("archive has no " + job.target.str() + " variant", *job.spec, options.seed);
    return;
  }
  std::unique_ptr<StubRoutedTarget> routed = make_stub_routed_target(target, options.archive, job.target);
  Artifact placeholder;   // the stub takes the bytes from the archive
  placeholder.target = job.target;
  OracleOptions oracle_options;
  oracle_options.seed = options.seed;
  row.report = run_oracle(*job.spec, *routed, placeholder, oracle_options);
  row.route = routed->route();
}

// The oracle on a freshly compiled artifact, launched through libtesserart
// from a one-kernel archive in memory, whatever the kind: the bytes and the
// code path qualified are the ones users run (for GPUs, the copying
// tsr_kernel_launch on the device the target found).
void qualify_compiled(const Job& job, const Target& target, const Artifact& artifact, uint64_t seed, VerdictRow& row) {
  OracleOptions oracle_options;
  oracle_options.seed = seed;
  Expected<std::unique_ptr<StubRoutedTarget>> routed = make_in_memory_stub_target(target, *job.spec, artifact);
  if (!routed) {
    row.report = not_run("", *job.spec, seed);
    row.report.verdict = Verdict::fail;
    row.report.reason = "cannot open the artifact through libtesserart: " + routed.error().message();
    return;
  }
  row.report = run_oracle(*job.spec, **routed, artifact, oracle_options);
  row.route = (*routed)->route();
}

// Emulated oracle results by (kernel identity, sha256 of the emitted source):
// the cuda emitter writes the same source for every arch, and the emulator
// models no arch difference, so one emulation is the evidence for each arch
// whose source is byte-identical.
struct EmulatedResult {
  OracleReport report;
  std::string route;
  TargetName first;   // the target it was emulated for
};
using EmulationCache = std::map<std::string, EmulatedResult>;

// The oracle on the CPU emulator over the source the job's artifact is
// compiled from (tesserac test/build --emulate, a GPU target with no device).
void qualify_emulated(const Job& job, const Target& target, uint64_t seed, EmulationCache& cache, VerdictRow& row) {
  Expected<std::string> source = target.emit(*job.spec, job.target.arch);
  if (!source) {
    row.report = not_run("emulator: " + source.error().message(), *job.spec, seed);
    return;
  }
  const std::string key = row.identity + ":" + sha256_hex(*source);
  if (auto it = cache.find(key); it != cache.end()) {
    row.report = it->second.report;
    row.route = it->second.route;
    row.report.reason += " (source byte-identical to " + it->second.first.str() + "'s, emulated once)";
    return;
  }
  OracleOptions oracle_options;
  oracle_options.seed = seed;
  const cuda::emu::EmulatedReport emulated =
      cuda::emu::emulate_oracle(*job.spec, job.target.arch, *source, oracle_options);
  row.report = emulated.oracle;
  if (row.report.verdict != Verdict::not_run) row.route = "CPU emulator: " + emulated.toolchain;
  cache[key] = {row.report, row.route, job.target};
}

// Whether the job's oracle runs in the emulator: asked for, a GPU target the
// emulator models, and no device to run it on.
bool runs_emulated(const Job& job, const Target& target, const QualifyOptions& options) {
  return options.emulate && job.target.kind == "cuda" && !target.device(job.target.arch).present;
}

}  // namespace

std::vector<VerdictRow> qualify_jobs(const std::vector<Job>& jobs, const QualifyOptions& options) {
  std::vector<VerdictRow> rows;
  EmulationCache emulated;
  for (const Job& job : jobs) {
    VerdictRow row;
    row.kernel = job.spec->name;
    row.identity = kernel_identity(*job.spec);
    row.target = job.target;
    if (!job.unsupported.empty()) {
      row.report = not_run("target does not support this kernel: " + job.unsupported, *job.spec, options.seed);
      rows.push_back(std::move(row));
      continue;
    }
    const Target* target = find_target(job.target.kind);
    if (options.archive) {
      qualify_from_archive(job, *target, options, row);
      rows.push_back(std::move(row));
      continue;
    }
    Expected<Artifact> artifact = compile_for_target(*job.spec, job.target);
    const bool emulate = options.run_oracle && runs_emulated(job, *target, options);
    if (!artifact) {
      const bool unavailable = artifact.error().message().rfind("target unavailable:", 0) == 0;
      row.compile_failed = !unavailable;
      row.unavailable = unavailable;
      if (!unavailable) std::cerr << "tesserac: error: " << artifact.error().message() << "\n";
      row.report = not_run(unavailable ? artifact.error().message() : "compile failed (see error above)", *job.spec,
                           options.seed);
      // The emulator needs only the emitted source and clang, not the GPU
      // toolchain: `test --emulate` still checks the kernel's semantics. A
      // build (keep_artifacts) records verdicts of what it ships only.
      if (unavailable && emulate && !options.keep_artifacts)
        qualify_emulated(job, *target, options.seed, emulated, row);
      rows.push_back(std::move(row));
      continue;
    }
    if (emulate) {
      qualify_emulated(job, *target, options.seed, emulated, row);
    } else if (options.run_oracle) {
      qualify_compiled(job, *target, *artifact, options.seed, row);
    } else {
      row.report = not_run("skipped by request (--no-oracle)", *job.spec, options.seed);
    }
    if (options.keep_artifacts) row.artifact = std::move(*artifact);
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

std::string render_verdict_table(const std::vector<VerdictRow>& rows) {
  size_t kw = 6, tw = 6, vw = 7;
  for (const VerdictRow& r : rows) {
    kw = std::max(kw, r.kernel.size());
    tw = std::max(tw, r.target.str().size());
    vw = std::max(vw, std::string(verdict_name(r.report.verdict)).size());
  }
  char line[1024];
  std::string out;
  std::snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-9s  %-9s  %-17s  %s\n", static_cast<int>(kw), "KERNEL",
                static_cast<int>(tw), "TARGET", static_cast<int>(vw), "VERDICT", "MAX_ABS", "MAX_REL",
                "BUDGET atol/rtol", "DETAIL");
  out += line;
  int pass = 0, emulated = 0, fail = 0, not_run_count = 0;
  for (const VerdictRow& r : rows) {
    const OracleReport& rep = r.report;
    const bool ran = rep.verdict != Verdict::not_run;
    const bool passed = rep.verdict == Verdict::pass || rep.verdict == Verdict::pass_emulated;
    std::string detail = passed ? "seed=" + std::to_string(rep.seed) + " trials=" + std::to_string(rep.trials) +
                                      (rep.determinism_checked ? " rerun=bit-identical" : "") + " budget_use=" +
                                      num(rep.budget_use) + (rep.absolute_term_decided ? "(atol)" : "(rtol)")
                                : rep.reason;
    if (rep.verdict == Verdict::pass_emulated) detail += " (" + rep.reason + ")";
    std::snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-9s  %-9s  %-17s  %s\n", static_cast<int>(kw),
                  r.kernel.c_str(), static_cast<int>(tw), r.target.str().c_str(), static_cast<int>(vw),
                  verdict_name(rep.verdict),
                  ran ? num(rep.max_abs_err).c_str() : "-", ran ? num(rep.max_rel_err).c_str() : "-",
                  (num(rep.budget.atol) + "/" + num(rep.budget.rtol)).c_str(), detail.c_str());
    out += line;
    pass += rep.verdict == Verdict::pass;
    emulated += rep.verdict == Verdict::pass_emulated;
    fail += rep.verdict == Verdict::fail;
    not_run_count += rep.verdict == Verdict::not_run;
  }
  // Emulated passes are counted apart from hardware passes, and only named
  // when there are some, so a run without --emulate reads as it always has.
  out += std::to_string(pass) + " passed, " +
         (emulated ? std::to_string(emulated) + " passed emulated (not hardware), " : std::string()) +
         std::to_string(fail) + " failed, " + std::to_string(not_run_count) + " not run\n";
  return out;
}

std::string render_verdict_json(const std::vector<VerdictRow>& rows) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const VerdictRow& r : rows) {
    nlohmann::ordered_json j;
    j["kernel"] = r.kernel;
    j["identity"] = r.identity;
    j["target"] = r.target.str();
    j["verdict"] = verdict_name(r.report.verdict);
    j["max_abs_err"] = r.report.max_abs_err;
    j["max_rel_err"] = r.report.max_rel_err;
    j["budget_atol"] = r.report.budget.atol;
    j["budget_rtol"] = r.report.budget.rtol;
    j["rel_threshold"] = relative_threshold(r.report.budget);   // max_rel_err counts |ref| at or above it
    j["budget_use"] = r.report.budget_use;
    j["budget_term"] = r.report.absolute_term_decided ? "atol" : "rtol";
    j["seed"] = r.report.seed;
    j["trials"] = r.report.trials;
    j["determinism_checked"] = r.report.determinism_checked;
    j["reason"] = r.report.reason;
    j["route"] = r.route;
    results.push_back(j);
  }
  nlohmann::ordered_json doc;
  doc["results"] = results;
  return doc.dump(2) + "\n";
}

}  // namespace tsr
