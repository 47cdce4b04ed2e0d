// The measured arbiter (DESIGN.md §6, docs/arbiter.md): every candidate of a
// kernel for one target — the generated variants (Target::generated_candidates)
// and the spec's kernel_call delegates — goes through the oracle with its
// own declared budget; failures are dropped, and so are nondeterministic
// candidates of a deterministic spec; the rest are measured through
// libtesserart (warm-up, median of interleaved rounds) at one shape per
// bucket, and each bucket's route is the fastest, followed by the next ones
// down to the first generated candidate (a delegate whose library is
// missing at run time falls back along it). The result is one variant:
// every generated candidate a route names in one shared object, with the
// route and every measurement in its metadata.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/measure.h"
#include "arbiter/tuning_buckets.h"
#include "oracle/oracle.h"
#include "spec/kernel_spec.h"
#include "support/error.h"
#include "target/target.h"

namespace tsr {

class CompileCache;
class BuildProgress;

inline constexpr const char* kTuneFormat = "tesserac-tune-3";

struct TuneOptions {
  MeasurePlan measure;   // rounds, sample, warm-up, settle (arbiter/measure.h)
  uint64_t seed = OracleOptions{}.seed;
  CompileCache* cache = nullptr;   // compiled candidates and the tuning cache (docs/cache.md)
  BuildProgress* progress = nullptr;
  // Test hook: more candidates of the generated kind, each a C source for
  // the entry suffix given (`<kernel>_tsr_entry<suffix>` and its _workspace).
  std::vector<std::pair<std::string, std::function<std::string(const std::string& suffix)>>> injected;
};

enum class CandidateOutcome { measured, failed, nondeterministic, not_run, looser_budget };
const char* candidate_outcome_name(CandidateOutcome o);   // "measured", "dropped: FAIL", ...

struct CandidateResult {
  std::string name;        // "generated:default", "kernel_call:cblas_sgemm", "inline_ptx:1"
  std::string kind;        // generated | kernel_call | inline_ptx
  std::string tier;        // generated | vendor_library | hand_tuned
  std::string callee;      // kernel_call
  std::string generated;   // generated: the Target's candidate name (or the injected one's)
  std::map<std::string, std::string> tunables;
  CandidateOutcome outcome = CandidateOutcome::not_run;
  std::string reason;      // why dropped / not run
  std::string verdict;     // the candidate's own oracle verdict (PASS, FAIL, NOT_RUN)
  double max_abs_err = 0.0, max_rel_err = 0.0, budget_atol = 0.0, budget_rtol = 0.0;
  std::string version;     // generated: artifact SHA-256; kernel_call: the library's own version string
  std::vector<double> median_ns;   // per bucket; empty unless measured
};

struct TuneOutcome {
  std::string not_measured;    // non-empty: nothing was measured, and why (no device, kind not measured)
  TuneBuckets buckets;
  std::vector<CandidateResult> candidates;
  std::vector<std::vector<size_t>> routes;   // per bucket: candidate indices, fastest first
  uint32_t workers = 0;        // tsr_executor_worker_count() during the measurement
  int rounds = 0;
  std::string method;          // MeasurePlan::describe() of the measurement
  std::string device;
  bool cache_hit = false;
  std::string cache_key;
  std::optional<Artifact> artifact;   // the tuned variant; unset when not measured
  // What each candidate was measured as (same order as candidates; unset for
  // those never built): bench/arbiter_x86.cc re-measures them against `artifact`.
  std::vector<std::optional<Artifact>> candidate_artifacts;
};

Expected<TuneOutcome> tune_kernel(const KernelSpec& spec, const TargetName& target, const TuneOptions& options);
// The same, through `target` (the registered target of name.kind: Job::impl).
Expected<TuneOutcome> tune_kernel(const Target& target, const KernelSpec& spec, const TargetName& name,
                                  const TuneOptions& options);

// "850 ns", "12.3 us", "4.1 ms": a median as the tables print it.
std::string format_ns(double ns);

// The table `tesserac tune` prints: per candidate its verdict and the median
// per bucket, the chosen route per bucket, and selected/best ratio per bucket.
std::string render_tuning_table(const std::string& kernel, const TargetName& target, const TuneOutcome& outcome);

}  // namespace tsr
