#include "arbiter/arbiter.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "arbiter/library_probe.h"
#include "arbiter/route_metadata.h"
#include "arbiter/stub_candidate.h"
#include "arbiter/tuning_cache.h"
#include "cache/compile_cache.h"
#include "delegate/delegate_table.h"
#include "progress/build_progress.h"
#include "compile/cached_compile.h"
#include "compile/compile.h"
#include "launch/stub_launcher.h"
#include "identity/identity.h"
#include "oracle/route_trials.h"
#include "support/sha256.h"
#include "registry/registry.h"
#include "tesserart.h"

namespace tsr {

const char* candidate_outcome_name(CandidateOutcome o) {
  switch (o) {
    case CandidateOutcome::measured: return "measured";
    case CandidateOutcome::failed: return "dropped: oracle FAIL";
    case CandidateOutcome::nondeterministic: return "dropped: nondeterministic";
    case CandidateOutcome::not_run: return "not run";
    case CandidateOutcome::looser_budget: return "dropped: budget looser than the spec's";
  }
  return "?";
}

namespace {

// A candidate while the arbiter works on it.
struct Working {
  CandidateResult result;
  const Candidate* declared = nullptr;                       // kernel_call / inline_ptx: the spec's entry
  std::function<std::string(const std::string&)> source;     // generated: its C for an entry suffix
  std::optional<Artifact> artifact;                          // what the oracle and the measurement launch
  int delegates_policy = 0;                                  // tsr_select_options.delegates for the measurement
};

void say(const TuneOptions& options, const std::string& line) {
  if (options.progress) options.progress->detail(line);
}

// The spec as the oracle judges a candidate: the candidate's own declared
// accuracy and determinism, never the call site's (DESIGN.md §6).
KernelSpec as_declared(const KernelSpec& spec, const Accuracy& accuracy, Determinism determinism) {
  KernelSpec c = spec;
  c.accuracy = accuracy;
  c.determinism = determinism;
  return c;
}

// The generated candidates of the target, plus the test hook's.
std::vector<Working> generated_candidates(const KernelSpec& spec, const Target& target, const TargetName& name,
                                          const TuneOptions& options) {
  std::vector<Working> out;
  for (const GeneratedCandidate& g : target.generated_candidates(spec, name.arch)) {
    Working w;
    w.result.name = "generated:" + g.name;
    w.result.kind = "generated";
    w.result.tier = "generated";
    w.result.generated = g.name;
    w.result.tunables = g.tunables;
    const std::string gname = g.name;
    const Target* t = &target;
    const KernelSpec* s = &spec;
    const std::string arch = name.arch;
    w.source = [t, s, arch, gname](const std::string& suffix) -> std::string {
      Expected<std::string> src = t->emit_candidate(*s, arch, gname, suffix);
      return src ? *src : std::string();
    };
    out.push_back(std::move(w));
  }
  for (const auto& [iname, source] : options.injected) {
    Working w;
    w.result.name = "generated:" + iname;
    w.result.kind = "generated";
    w.result.tier = "generated";
    w.result.generated = iname;
    w.source = source;
    out.push_back(std::move(w));
  }
  return out;
}

std::string suffix_for(size_t index, size_t primary) {
  return index == primary ? "" : "_c" + std::to_string(index);
}

// The variant of a delegate candidate for the oracle and the measurement:
// the default generated code with a one-bucket route trying the delegate first.
Artifact delegate_artifact(const KernelSpec& spec, const Artifact& base, const std::string& callee) {
  Artifact a = base;
  RoutePlan plan;
  plan.buckets.push_back({RouteStep{true, callee}, RouteStep{false, base.entry}});
  for (const auto& [k, v] : route_metadata(spec, plan)) a.metadata[k] = v;
  a.key = sha256_hex(base.key + "\ndelegate " + callee);
  return a;
}

void record_oracle(CandidateResult& r, const OracleReport& report) {
  r.verdict = verdict_name(report.verdict);
  r.max_abs_err = report.max_abs_err;
  r.max_rel_err = report.max_rel_err;
  r.budget_atol = report.budget.atol;
  r.budget_rtol = report.budget.rtol;
  if (report.verdict == Verdict::fail) {
    r.outcome = CandidateOutcome::failed;
    r.reason = report.reason;
  } else if (report.verdict != Verdict::pass) {
    r.outcome = CandidateOutcome::not_run;
    r.reason = report.reason.empty() ? std::string("oracle ") + verdict_name(report.verdict) : report.reason;
  }
}

// tune.* keys: what was measured, where, and every candidate's result.
std::map<std::string, std::string> tune_metadata(const KernelSpec& spec, const TuneOutcome& o) {
  std::map<std::string, std::string> m;
  m["tune.format"] = kTuneFormat;
  m["tune.device"] = o.device;
  m["tune.workers"] = std::to_string(o.workers);
  m["tune.rounds"] = std::to_string(o.rounds);
  m["tune.method"] = o.method;
  for (size_t b = 0; b < o.buckets.buckets.size(); ++b) {
    m["tune.bucket." + std::to_string(b)] =
        o.buckets.buckets[b].label + " at " + bucket_shape_text(spec, o.buckets.buckets[b]);
    // What the oracle reruns the bucket's route at (oracle/route_trials.h).
    if (const std::string scalars = scalars_text(spec, o.buckets.buckets[b].scalars); !scalars.empty())
      m["tune.scalars." + std::to_string(b)] = scalars;
  }
  for (const CandidateResult& c : o.candidates) {
    char errs[160];
    std::snprintf(errs, sizeof errs, "max_abs_err=%.3g max_rel_err=%.3g budget atol=%.3g rtol=%.3g", c.max_abs_err,
                  c.max_rel_err, c.budget_atol, c.budget_rtol);
    m["tune.candidate." + c.name] = c.tier + ", oracle " + c.verdict + " " + errs + "; " + c.version;
    std::string outcome = candidate_outcome_name(c.outcome);
    if (!c.reason.empty()) outcome += ": " + c.reason;
    m["tune.outcome." + c.name] = outcome;
    for (size_t b = 0; b < c.median_ns.size(); ++b) {
      char ns[32];
      std::snprintf(ns, sizeof ns, "%.0f", c.median_ns[b]);
      m["tune.median_ns." + std::to_string(b) + "." + c.name] = ns;
    }
  }
  for (auto& [k, v] : m)
    for (char& ch : v)
      if (ch == '\n') ch = ' ';
  return m;
}

// A candidate whose declared budget admits an output the spec's does not is
// refused before anything runs: judged by its own budget, it could pass
// and win a bucket the spec's budget would fail. Componentwise is exact:
// atol_c + rtol_c|r| <= atol_s + rtol_s|r| for every |r| >= 0 iff both terms are.
void refuse_looser_budget(const KernelSpec& spec, const Candidate& c, CandidateResult& r) {
  const Budget mine = declared_budget(as_declared(spec, c.accuracy(), c.determinism()));
  const Budget theirs = declared_budget(spec);
  if (mine.atol <= theirs.atol && mine.rtol <= theirs.rtol) return;
  char why[200];
  std::snprintf(why, sizeof why, "declares atol %.3g rtol %.3g, looser than the spec's atol %.3g rtol %.3g", mine.atol,
                mine.rtol, theirs.atol, theirs.rtol);
  r.outcome = CandidateOutcome::looser_budget;
  r.verdict = "NOT_RUN";
  r.reason = why;
  r.budget_atol = mine.atol;
  r.budget_rtol = mine.rtol;
}

// Oracle, determinism filter and measurement of every candidate.
Status judge_and_measure(const KernelSpec& spec, const Target& target, const TargetName& name,
                         const TuneOptions& options, std::vector<Working>& work, TuneOutcome& out) {
  // Any candidate may be routed in any bucket: each must pass inside every
  // bucket and at every shape it is timed at, not only the standard trials.
  std::vector<std::string> labels;
  std::vector<std::map<std::string, int64_t>> timed;
  for (const TuneBucket& b : out.buckets.buckets) labels.push_back(b.label), timed.push_back(b.scalars);
  const std::vector<ShapeTrial> bucket_shapes = bucket_trials(spec, out.buckets.dim, out.buckets.bounds, labels, timed);
  for (Working& w : work) {
    CandidateResult& r = w.result;
    if (!w.artifact) continue;   // not built: not run, and why, is already recorded
    const Accuracy accuracy = w.declared ? w.declared->accuracy() : spec.accuracy;
    const Determinism det = w.declared ? w.declared->determinism() : spec.determinism;
    if (spec.determinism == Determinism::deterministic && det != Determinism::deterministic) {
      r.outcome = CandidateOutcome::nondeterministic;
      r.reason = "declares nondeterministic_allowed; the spec is deterministic";
      r.verdict = "NOT_RUN";
      continue;
    }
    say(options, "tune: oracle " + name.str() + " " + spec.name + " " + r.name);
    const KernelSpec declared = as_declared(spec, accuracy, det);
    Expected<std::unique_ptr<StubLauncher>> routed = make_in_memory_stub_launcher(target, declared, *w.artifact);
    if (!routed) {
      r.outcome = CandidateOutcome::failed;
      r.verdict = "FAIL";
      r.reason = "cannot open through libtesserart: " + routed.error().message();
      continue;
    }
    OracleOptions oracle_options;
    oracle_options.seed = options.seed;
    oracle_options.extra_trials = bucket_shapes;
    record_oracle(r, run_oracle(declared, **routed, *w.artifact, oracle_options));
    if (r.verdict == "PASS") r.outcome = CandidateOutcome::measured;
  }

  std::vector<size_t> live;
  std::vector<std::unique_ptr<StubCandidate>> loaded(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    if (work[i].result.outcome != CandidateOutcome::measured) continue;
    Expected<std::unique_ptr<StubCandidate>> c = StubCandidate::open(spec, *work[i].artifact, work[i].delegates_policy);
    if (!c) {
      work[i].result.outcome = CandidateOutcome::not_run;
      work[i].result.reason = c.error().message();
      continue;
    }
    loaded[i] = std::move(*c);
    live.push_back(i);
  }
  for (size_t b = 0; b < out.buckets.buckets.size(); ++b) {
    const TuneBucket& bucket = out.buckets.buckets[b];
    LaunchBuffers buffers = make_launch_buffers(spec, bucket.scalars, options.seed + b);
    // A delegate measured must be the delegate running, never its fallback.
    std::vector<size_t> here;
    for (size_t i : live) {
      if (work[i].result.kind == "kernel_call") {
        Expected<std::string> step = loaded[i]->route(buffers.scalars);
        if (!step || *step != "delegate:" + work[i].result.callee) {
          work[i].result.outcome = CandidateOutcome::not_run;
          work[i].result.reason = "the stub does not run the delegate: " + (step ? *step : step.error().message());
          continue;
        }
      }
      here.push_back(i);
    }
    live = here;
    if (live.empty()) break;
    say(options, "tune: measure " + name.str() + " " + spec.name + " " + bucket.label + " (" +
                     std::to_string(live.size()) + " candidates)");
    std::vector<const StubCandidate*> ptrs;
    std::vector<bool> own_threads;
    for (size_t i : live) {
      ptrs.push_back(loaded[i].get());
      own_threads.push_back(work[i].result.kind == "kernel_call");
    }
    Expected<std::vector<Measurement>> m = measure_interleaved(ptrs, own_threads, buffers, options.measure);
    if (!m) return m.take_error();
    for (size_t j = 0; j < live.size(); ++j) {
      std::vector<double>& medians = work[live[j]].result.median_ns;
      medians.resize(out.buckets.buckets.size(), -1.0);
      medians[b] = (*m)[j].median_ns;
    }
  }
  // Measured in every bucket, or not at all.
  for (Working& w : work)
    if (w.result.outcome == CandidateOutcome::measured &&
        (w.result.median_ns.size() != out.buckets.buckets.size() ||
         std::any_of(w.result.median_ns.begin(), w.result.median_ns.end(), [](double v) { return v < 0; }))) {
      w.result.outcome = CandidateOutcome::not_run;
      if (w.result.reason.empty()) w.result.reason = "not measured in every bucket";
      w.result.median_ns.clear();
    }
  return ok();
}

// Per bucket: the measured candidates, fastest first, down to the first
// generated one (which cannot fail to resolve), or empty when none was.
std::vector<std::vector<size_t>> choose_routes(const TuneOutcome& out) {
  std::vector<std::vector<size_t>> routes;
  for (size_t b = 0; b < out.buckets.buckets.size(); ++b) {
    std::vector<size_t> order;
    for (size_t i = 0; i < out.candidates.size(); ++i)
      if (out.candidates[i].outcome == CandidateOutcome::measured) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return out.candidates[x].median_ns[b] < out.candidates[y].median_ns[b];
    });
    std::vector<size_t> route;
    for (size_t i : order) {
      route.push_back(i);
      if (out.candidates[i].kind == "generated") break;
    }
    if (route.empty() || out.candidates[route.back()].kind != "generated") route.clear();
    routes.push_back(route);
  }
  return routes;
}

// The tuned variant: every generated candidate a route names, in one shared
// object; the primary (the last bucket's generated step) is the VARS entry,
// what a reader that ignores routes runs.
Expected<Artifact> tuned_artifact(const KernelSpec& spec, const Target& target, const TargetName& name,
                                  const std::vector<Working>& work, const TuneOutcome& out, CompileCache* cache) {
  const size_t primary = out.routes.back().back();
  std::vector<size_t> used = {primary};
  for (const std::vector<size_t>& route : out.routes)
    for (size_t i : route)
      if (out.candidates[i].kind == "generated" && std::find(used.begin(), used.end(), i) == used.end())
        used.push_back(i);
  std::vector<std::string> sources;
  for (size_t i : used) {
    std::string source = work[i].source(suffix_for(i, primary));
    if (source.empty()) return toolchain_error("cannot emit " + out.candidates[i].name + " of " + spec.name);
    sources.push_back(std::move(source));
  }
  Expected<Artifact> art = [&]() -> Expected<Artifact> {
    if (sources.size() == 1) return compile_through_cache(spec, target, name, sources[0], cache);
    Expected<Artifact> a = target.compile_candidates(spec, name.arch, sources);
    if (!a) return a;
    a->key = artifact_key(spec, name, target.toolchain(), a->key);
    return a;
  }();
  if (!art) return art;
  RoutePlan plan;
  plan.dim = out.buckets.dim;
  plan.bounds = out.buckets.bounds;
  for (const std::vector<size_t>& route : out.routes) {
    std::vector<RouteStep> steps;
    for (size_t i : route) {
      const CandidateResult& c = out.candidates[i];
      if (c.kind == "kernel_call") steps.push_back({true, c.callee});
      else steps.push_back({false, spec.name + "_tsr_entry" + suffix_for(i, primary)});
    }
    plan.buckets.push_back(steps);
  }
  std::string meta_text;
  for (const auto& [k, v] : route_metadata(spec, plan)) art->metadata[k] = v;
  for (const auto& [k, v] : tune_metadata(spec, out)) art->metadata[k] = v;
  for (const auto& [k, v] : art->metadata) meta_text += k + "=" + v + "\n";
  art->key = sha256_hex(art->key + "\n" + meta_text);
  return art;
}

}  // namespace

std::string format_ns(double ns) {
  char buf[32];
  if (ns < 1e4) std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e7) std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  return buf;
}

namespace {

// Every candidate, generated ones first (in the target's order), then the spec's.
std::vector<Working> all_candidates(const KernelSpec& spec, const Target& target, const TargetName& name,
                                    const TuneOptions& options) {
  std::vector<Working> work = generated_candidates(spec, target, name, options);
  for (const Candidate& c : spec.candidates) {
    if (!c.applies_to(name)) continue;
    Working w;
    w.declared = &c;
    refuse_looser_budget(spec, c, w.result);
    if (c.kind == Candidate::Kind::kernel_call) {
      w.result.name = "kernel_call:" + c.call.callee;
      w.result.kind = "kernel_call";
      w.result.tier = provenance_name(c.call.provenance);
      w.result.callee = c.call.callee;
      w.delegates_policy = 1;
    } else {
      w.result.name = "inline_ptx:" + std::to_string(c.ptx_index);
      w.result.kind = "inline_ptx";
      w.result.tier = "hand_tuned";
    }
    if (w.result.kind == "inline_ptx" && w.result.outcome != CandidateOutcome::looser_budget) {
      w.result.outcome = CandidateOutcome::not_run;
      w.result.verdict = "NOT_RUN";
      w.result.reason = "inline_ptx candidates are not run by this version of the arbiter (docs/arbiter.md)";
    }
    work.push_back(std::move(w));
  }
  return work;
}

// Compiles the generated candidates (through the compile cache) and probes
// the delegates' libraries; every candidate's version goes into `key`. The
// delegates launch through a copy of the first generated artifact.
Status prepare_candidates(const KernelSpec& spec, const Target& target, const TargetName& name,
                          const TuneOptions& options, std::vector<Working>& work, TuningKeyFields& key) {
  std::optional<Artifact> base;
  for (Working& w : work) {
    CandidateResult& r = w.result;
    if (r.kind == "generated") {
      const std::string source = w.source("");
      if (source.empty()) return toolchain_error("cannot emit " + r.name + " of " + spec.name);
      Expected<Artifact> art = compile_through_cache(spec, target, name, source, options.cache);
      if (!art) return art.take_error();
      r.version = "sha256 " + sha256_hex(art->bytes.data(), art->bytes.size());
      w.artifact = std::move(*art);
      if (!base) base = w.artifact;
    } else if (r.kind == "kernel_call" && r.outcome == CandidateOutcome::looser_budget) {
      r.version = "not probed";
    } else if (r.kind == "kernel_call") {
      const DelegateEntry* d = find_delegate(spec.family, name.kind, r.callee);
      if (!d) return internal_error("internal: '" + r.callee + "' passed the verifier but is not in the delegate table");
      const LibraryProbe probe = probe_library(d->library, d->sonames, r.callee);
      if (!probe.found) {
        r.outcome = CandidateOutcome::not_run;
        r.verdict = "NOT_RUN";
        r.reason = probe.why_not;
        r.version = "not found";
      } else {
        r.version = probe.version;
      }
    }
    key.candidates.push_back({r.name, r.version});
  }
  if (!base) return toolchain_error("no generated candidate for " + spec.name + " on " + name.str());
  for (Working& w : work)
    if (w.result.kind == "kernel_call" && w.result.reason.empty())   // its library was found, its budget fits
      w.artifact = delegate_artifact(spec, *base, w.result.callee);
  return ok();
}

// The tuning cache's record for `key`, when it holds one for as many
// candidates; an unreadable or stale record is dropped.
std::optional<TuneOutcome> cached_tuning(const TuneOptions& options, const std::string& key, size_t candidates) {
  if (!options.cache) return std::nullopt;
  std::optional<std::string> text = options.cache->find_tuning(key);
  if (!text) return std::nullopt;
  std::optional<TuneOutcome> cached = deserialize_tuning(*text);
  if (cached && cached->candidates.size() == candidates) return cached;
  options.cache->drop_tuning(key);
  return std::nullopt;
}

}  // namespace

Expected<TuneOutcome> tune_kernel(const KernelSpec& spec, const TargetName& name, const TuneOptions& options) {
  const Target* target = find_target(name.kind);
  if (!target) return invalid_input("no target kind '" + name.kind + "'");
  return tune_kernel(*target, spec, name, options);
}

Expected<TuneOutcome> tune_kernel(const Target& target, const KernelSpec& spec, const TargetName& name,
                                  const TuneOptions& options) {
  TuneOutcome out;
  out.buckets = tuning_buckets(spec);
  out.rounds = options.measure.rounds;
  out.method = options.measure.describe();
  const DeviceInfo device = target.device(name.arch);
  out.device = device.present ? device.name + " (" + device.capability + ")" : device.description;
  std::vector<Working> work = all_candidates(spec, target, name, options);

  if (name.kind != "x86") out.not_measured = "the arbiter measures x86 targets only (docs/arbiter.md)";
  else if (!device.present) out.not_measured = "no device: " + device.description;
  if (!out.not_measured.empty()) {
    for (Working& w : work) {
      w.result.verdict = "NOT_RUN";
      if (w.result.reason.empty()) w.result.reason = out.not_measured;
      out.candidates.push_back(w.result);
    }
    return out;
  }

  TuningKeyFields key;
  key.identity = kernel_identity(spec);
  key.target = name;
  key.device = out.device;
  key.driver = device.driver;
  key.tesserac_version = TESSERAC_VERSION;
  key.toolchain = target.toolchain().version;
  key.workers = tsr_executor_worker_count();
  key.method = options.measure.describe();
  key.oracle_seed = options.seed;
  if (Status s = prepare_candidates(spec, target, name, options, work, key); !s) return s.take_error();
  out.workers = key.workers;
  out.cache_key = tuning_cache_key(key);

  const std::optional<TuneOutcome> cached = cached_tuning(options, out.cache_key, work.size());
  if (cached) {
    say(options, "tuning cache hit: " + name.str() + " " + spec.name + " (" + out.cache_key.substr(0, 16) + ")");
    out.candidates = cached->candidates;
    out.routes = cached->routes;
    out.workers = cached->workers;
    out.device = cached->device;
    out.cache_hit = true;
  } else {
    if (Status s = judge_and_measure(spec, target, name, options, work, out); !s.ok()) return s.take_error();
    for (const Working& w : work) out.candidates.push_back(w.result);
    out.routes = choose_routes(out);
  }
  if (std::any_of(out.routes.begin(), out.routes.end(), [](const auto& r) { return r.empty(); })) {
    out.not_measured = "no generated candidate passed the oracle and was measured";
    return out;
  }
  if (!cached && options.cache) options.cache->store_tuning(out.cache_key, serialize_tuning(key, out));
  Expected<Artifact> art = tuned_artifact(spec, target, name, work, out, options.cache);
  if (!art) return art.take_error();
  out.artifact = std::move(*art);
  for (const Working& w : work) out.candidate_artifacts.push_back(w.artifact);
  return out;
}

std::string render_tuning_table(const std::string& kernel, const TargetName& target, const TuneOutcome& o) {
  std::ostringstream os;
  os << "tuning " << kernel << " on " << target.str();
  if (!o.not_measured.empty()) {
    os << ": not measured: " << o.not_measured << "\n";
    for (const CandidateResult& c : o.candidates)
      os << "  " << c.name << "  " << c.tier << "  NOT_RUN  " << c.reason << "\n";
    return os.str();
  }
  os << " (" << o.device << ", " << o.workers << " workers" << (o.cache_hit ? ", from the tuning cache" : "")
     << ")\n  measurement: " << o.method << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-44s %-15s %-8s", "candidate", "tier", "oracle");
  os << line;
  for (const TuneBucket& b : o.buckets.buckets) {
    std::snprintf(line, sizeof line, " %12s", b.label.c_str());
    os << line;
  }
  os << "\n";
  for (const CandidateResult& c : o.candidates) {
    std::snprintf(line, sizeof line, "  %-44s %-15s %-8s", c.name.c_str(), c.tier.c_str(), c.verdict.c_str());
    os << line;
    if (c.outcome == CandidateOutcome::measured) {
      for (double ns : c.median_ns) {
        std::snprintf(line, sizeof line, " %12s", format_ns(ns).c_str());
        os << line;
      }
    } else {
      os << " " << candidate_outcome_name(c.outcome) << (c.reason.empty() ? "" : ": " + c.reason.substr(0, 160));
    }
    os << "\n";
  }
  for (size_t b = 0; b < o.routes.size(); ++b) {
    os << "  route " << o.buckets.buckets[b].label << ":";
    for (size_t i : o.routes[b]) os << " " << o.candidates[i].name;
    os << "\n";
  }
  return os.str();
}

}  // namespace tsr
