// The measured arbiter (src/pipeline/arbiter/, docs/arbiter.md) on the x86 target:
// candidates through the oracle with their own budgets, the determinism
// filter, a wrong fast candidate never chosen, routes per shape bucket that
// the stub follows, and the tuning cache's hits and invalidation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "arbiter/arbiter.h"
#include "arbiter/stub_candidate.h"
#include "arbiter/tuning_buckets.h"
#include "arbiter/tuning_cache.h"
#include "cache/compile_cache.h"
#include "arbiter/route_metadata.h"
#include "oracle/input_generator.h"
#include "launch/stub_launcher.h"
#include "spec_test_util.h"
#include "registry/registry.h"
#include "tesserart.h"

namespace tsr {
namespace {

using testing::must_decode;

const TargetName kV3{"x86", "v3"};

std::string matmul_yaml(const std::string& m, const std::string& determinism, const std::string& candidates) {
  return "tesserac: 1\nkernel: mm\nfamily: matmul\ndtype: f32\naccumulate: f32\n"
         "shape: {M: " + m + ", N: 48, K: 40}\nlayout: {a: row, b: col}\n"
         "accuracy: {kind: tolerance_bounded, atol: 1e-4, rtol: 1e-4}\ndeterminism: " + determinism + "\n" +
         candidates;
}

const char* kDelegates =
    "candidates:\n"
    "  - kernel_call: {callee: cblas_sgemm, arch: x86, binding: c_abi, provenance: vendor_library,\n"
    "                  accuracy: {kind: tolerance_bounded, tolerance: 1e-4, tolerance_rel: 1e-4},\n"
    "                  determinism: deterministic}\n"
    "  - kernel_call: {callee: dnnl_sgemm, arch: x86, binding: c_abi, provenance: vendor_library,\n"
    "                  accuracy: {kind: tolerance_bounded, tolerance: 1e-4, tolerance_rel: 1e-4},\n"
    "                  determinism: nondeterministic_allowed}\n";

class Arbiter : public ::testing::Test {
 protected:
  void SetUp() override {
    const Target* t = find_target("x86");
    if (!t->toolchain().found) GTEST_SKIP() << "x86 toolchain (clang) not available";
    if (!t->device("v3").present) GTEST_SKIP() << "this CPU lacks x86-64-v3";
    options_.measure.rounds = 3;
    options_.measure.min_sample_ms = 0.2;
    options_.measure.warm_ms = 0.1;
    options_.measure.settle_ms = 1.0;
  }
  void TearDown() override {
    if (!cache_dir_.empty()) std::filesystem::remove_all(cache_dir_);
  }
  // A tuning cache of the test's own, in an empty directory removed after the test.
  void use_fresh_cache(const std::string& name) {
    cache_dir_ = ::testing::TempDir() + "/" + name + "-" + std::to_string(getpid());
    std::filesystem::remove_all(cache_dir_);
    Expected<CompileCache> cache = CompileCache::open(cache_dir_, kDefaultCacheMaxBytes);
    ASSERT_TRUE(cache.ok());
    cache_.emplace(std::move(*cache));
    options_.cache = &*cache_;
  }
  TuneOptions options_;
  std::string cache_dir_;
  std::optional<CompileCache> cache_;
};

const CandidateResult* find(const TuneOutcome& o, const std::string& name) {
  for (const CandidateResult& c : o.candidates)
    if (c.name == name) return &c;
  return nullptr;
}

// The step a launch with `scalars` takes in the tuned variant, as the stub decides it.
std::string stub_route(const KernelSpec& spec, const Artifact& art, const std::vector<int64_t>& scalars) {
  Expected<std::unique_ptr<StubCandidate>> c = StubCandidate::open(spec, art, 0);
  EXPECT_TRUE(c.ok()) << (c ? "" : c.error().message());
  if (!c) return "";
  Expected<std::string> step = (*c)->route(scalars);
  return step ? *step : step.error().message();
}

// The first step of bucket b's route as the arbiter recorded it, checked
// against the candidate it chose.
std::string step_of(const TuneOutcome& o, size_t bucket) {
  const CandidateResult& c = o.candidates[o.routes[bucket].front()];
  const std::string meta = o.artifact->metadata.at("route." + std::to_string(bucket));
  const std::string first = meta.substr(0, meta.find(' '));
  if (c.kind == "kernel_call") EXPECT_EQ(first, "delegate:" + c.callee);
  else EXPECT_EQ(first.rfind("entry:mm_tsr_entry", 0), 0u) << first;
  return first;
}

TEST_F(Arbiter, EveryCandidateJudgedMeasuredAndTheFastestRouted) {
  const KernelSpec spec = must_decode(matmul_yaml("64", "nondeterministic_allowed", kDelegates));
  Expected<TuneOutcome> o = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  ASSERT_TRUE(o->not_measured.empty()) << o->not_measured;
  ASSERT_TRUE(o->artifact.has_value());
  EXPECT_GT(o->workers, 0u);
  const size_t generated = find_target("x86")->generated_candidates(spec, "v3").size();
  EXPECT_EQ(o->candidates.size(), generated + 2);
  ASSERT_EQ(o->routes.size(), 1u);
  // Every measured candidate passed its own oracle; the route starts at the minimum.
  double best = 1e300;
  for (const CandidateResult& c : o->candidates) {
    if (c.outcome != CandidateOutcome::measured) continue;
    EXPECT_EQ(c.verdict, "PASS") << c.name;
    ASSERT_EQ(c.median_ns.size(), 1u);
    EXPECT_GT(c.median_ns[0], 0.0);
    best = std::min(best, c.median_ns[0]);
  }
  EXPECT_EQ(o->candidates[o->routes[0].front()].median_ns[0], best);
  EXPECT_EQ(o->candidates[o->routes[0].back()].kind, "generated");
  // The delegate's budget is its declared one (1e-4), never the call site's.
  const CandidateResult* blas = find(*o, "kernel_call:cblas_sgemm");
  ASSERT_NE(blas, nullptr);
  if (blas->outcome == CandidateOutcome::measured) {
    EXPECT_DOUBLE_EQ(blas->budget_atol, 1e-4);
    EXPECT_NE(blas->version.find("OpenBLAS"), std::string::npos) << blas->version;
  }
  // The stub runs the chosen route, and the tuned variant passes the oracle through it.
  EXPECT_EQ(stub_route(spec, *o->artifact, {}), step_of(*o, 0));
  auto routed = make_in_memory_stub_launcher(*find_target("x86"), spec, *o->artifact);
  ASSERT_TRUE(routed.ok());
  EXPECT_EQ(run_oracle(spec, **routed, *o->artifact).verdict, Verdict::pass);
  // Every measurement is in the variant's metadata.
  for (const CandidateResult& c : o->candidates) {
    EXPECT_TRUE(o->artifact->metadata.count("tune.candidate." + c.name)) << c.name;
    if (c.outcome == CandidateOutcome::measured)
      EXPECT_TRUE(o->artifact->metadata.count("tune.median_ns.0." + c.name)) << c.name;
  }
}

TEST_F(Arbiter, DeterministicSpecDropsNondeterministicCandidatesUnrun) {
  const KernelSpec spec = must_decode(matmul_yaml("64", "deterministic", kDelegates));
  Expected<TuneOutcome> o = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  const CandidateResult* dnnl = find(*o, "kernel_call:dnnl_sgemm");
  ASSERT_NE(dnnl, nullptr);
  EXPECT_EQ(dnnl->outcome, CandidateOutcome::nondeterministic);
  EXPECT_EQ(dnnl->verdict, "NOT_RUN");
  EXPECT_TRUE(dnnl->median_ns.empty());
  for (const std::vector<size_t>& route : o->routes)
    for (size_t i : route) EXPECT_NE(o->candidates[i].name, "kernel_call:dnnl_sgemm");
}

// A candidate that does O(1) work and writes one wrong element: by far the
// fastest, and never chosen, because the oracle drops it first.
TEST_F(Arbiter, FastWrongCandidateIsNeverSelected) {
  const KernelSpec spec = must_decode(matmul_yaml("64", "deterministic", ""));
  options_.injected.push_back({"wrong_fast", [](const std::string& suffix) {
    return "#include <stdint.h>\n"
           "__attribute__((visibility(\"default\"))) void mm_tsr_entry" + suffix +
           "(const void* ctx, void* const* buffers, const int64_t* scalars) {\n"
           "  (void)ctx; (void)scalars; ((float*)buffers[2])[0] = 1.0f;\n}\n"
           "__attribute__((visibility(\"default\"))) uint64_t mm_tsr_entry" + suffix +
           "_workspace(const int64_t* scalars, uint32_t workers) { (void)scalars; (void)workers; return 0; }\n";
  }});
  Expected<TuneOutcome> o = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  const CandidateResult* wrong = find(*o, "generated:wrong_fast");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->outcome, CandidateOutcome::failed);
  EXPECT_EQ(wrong->verdict, "FAIL");
  EXPECT_FALSE(wrong->reason.empty());
  ASSERT_FALSE(o->routes.empty());
  for (const std::vector<size_t>& route : o->routes)
    for (size_t i : route) EXPECT_NE(o->candidates[i].name, "generated:wrong_fast");
}

TEST_F(Arbiter, RuntimeExtentIsRoutedPerBucketAndTheStubFollows) {
  const KernelSpec spec = must_decode(matmul_yaml("M", "nondeterministic_allowed", kDelegates));
  const TuneBuckets buckets = tuning_buckets(spec);
  EXPECT_EQ(buckets.dim, "M");
  ASSERT_EQ(buckets.bounds, (std::vector<int64_t>{16, 256}));
  Expected<TuneOutcome> o = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  ASSERT_TRUE(o->artifact.has_value()) << o->not_measured;
  EXPECT_EQ(o->artifact->metadata.at("route.dim"), "M");
  EXPECT_EQ(o->artifact->metadata.at("route.bounds"), "16,256");
  ASSERT_EQ(o->routes.size(), 3u);
  const int64_t in_bucket[] = {3, 100, 5000};
  for (size_t b = 0; b < 3; ++b) EXPECT_EQ(stub_route(spec, *o->artifact, {in_bucket[b]}), step_of(*o, b)) << b;
}

// mm (a row, b col, N = 48, K = 40) as an injected candidate's C source:
// correct while M <= `correct_up_to`, and above it an O(1) launch that
// writes nothing, so it is by far the fastest there.
std::string mm_correct_up_to(int64_t correct_up_to, const std::string& suffix) {
  return "#include <stdint.h>\n"
         "__attribute__((visibility(\"default\"))) void mm_tsr_entry" + suffix +
         "(const void* ctx, void* const* buffers, const int64_t* scalars) {\n"
         "  (void)ctx;\n  const float* a = buffers[0]; const float* b = buffers[1]; float* c = buffers[2];\n"
         "  if (scalars[0] > " + std::to_string(correct_up_to) + ") return;\n"
         "  for (int64_t i = 0; i < scalars[0]; ++i)\n    for (int64_t j = 0; j < 48; ++j) {\n"
         "      double s = 0;\n      for (int64_t p = 0; p < 40; ++p) s += (double)a[i * 40 + p] * b[j * 40 + p];\n"
         "      c[i * 48 + j] = (float)s;\n    }\n}\n"
         "__attribute__((visibility(\"default\"))) uint64_t mm_tsr_entry" + suffix +
         "_workspace(const int64_t* scalars, uint32_t workers) { (void)scalars; (void)workers; return 0; }\n";
}

bool routed_anywhere(const TuneOutcome& o, const std::string& name) {
  for (const std::vector<size_t>& route : o.routes)
    for (size_t i : route)
      if (o.candidates[i].name == name) return true;
  return false;
}

// The standard trials stop at M = 256; the last bucket is M > 256. A
// candidate wrong only there must fail its oracle and never be routed.
TEST_F(Arbiter, CandidateWrongOnlyInTheLastBucketIsNeverRouted) {
  const KernelSpec spec = must_decode(matmul_yaml("M", "deterministic", ""));
  options_.injected.push_back({"wrong_above_256", [](const std::string& suffix) {
    return mm_correct_up_to(256, suffix);
  }});
  Expected<TuneOutcome> o = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  ASSERT_TRUE(o->artifact.has_value()) << o->not_measured;
  const CandidateResult* wrong = find(*o, "generated:wrong_above_256");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->verdict, "FAIL") << render_tuning_table("mm", kV3, *o);
  EXPECT_EQ(wrong->outcome, CandidateOutcome::failed);
  EXPECT_NE(wrong->reason.find("M>256"), std::string::npos) << wrong->reason;
  EXPECT_FALSE(routed_anywhere(*o, "generated:wrong_above_256")) << render_tuning_table("mm", kV3, *o);
  // The variant records where each route was measured, and passes its final check there.
  EXPECT_EQ(o->artifact->metadata.at("tune.scalars.2"), "M=1024");
  auto routed = make_in_memory_stub_launcher(*find_target("x86"), spec, *o->artifact);
  ASSERT_TRUE(routed.ok());
  const OracleReport final_check = run_oracle(spec, **routed, *o->artifact);
  EXPECT_EQ(final_check.verdict, Verdict::pass) << final_check.reason;
  EXPECT_GT(final_check.trials, kTrialCount);
  // Inside the last bucket and at its timed shape, as a receipt lists them.
  ASSERT_EQ(final_check.trial_shapes.size(), static_cast<size_t>(final_check.trials));
  std::vector<int64_t> ms;
  for (const auto& shape : final_check.trial_shapes) ms.push_back(shape.at("M"));
  EXPECT_NE(std::find(ms.begin(), ms.end(), 513), ms.end());
  EXPECT_NE(std::find(ms.begin(), ms.end(), 1024), ms.end());
}

// The final check of a routed variant on its own: route M>256 runs an entry
// that is wrong only there; the oracle must launch that bucket and fail.
TEST_F(Arbiter, FinalCheckRunsEveryRouteInsideItsBucket) {
  const KernelSpec spec = must_decode(matmul_yaml("M", "deterministic", ""));
  const Target& x86 = *find_target("x86");
  Expected<std::string> good = x86.emit_candidate(spec, "v3", "default", "");
  ASSERT_TRUE(good.ok()) << good.error().message();
  Expected<Artifact> art = x86.compile_candidates(spec, "v3", {*good, mm_correct_up_to(256, "_c1")});
  ASSERT_TRUE(art.ok()) << art.error().message();
  auto oracle_with_last_route = [&](const std::string& entry) {
    Artifact a = *art;
    RoutePlan plan{"M", {16, 256}, {{{false, "mm_tsr_entry"}}, {{false, "mm_tsr_entry"}}, {{false, entry}}}};
    for (const auto& [k, v] : route_metadata(spec, plan)) a.metadata[k] = v;
    auto routed = make_in_memory_stub_launcher(x86, spec, a);
    EXPECT_TRUE(routed.ok());
    return routed ? run_oracle(spec, **routed, a) : OracleReport{};
  };
  const OracleReport right = oracle_with_last_route("mm_tsr_entry");
  EXPECT_EQ(right.verdict, Verdict::pass) << right.reason;
  const OracleReport wrong = oracle_with_last_route("mm_tsr_entry_c1");
  EXPECT_EQ(wrong.verdict, Verdict::fail);
  EXPECT_NE(wrong.reason.find("route M>256"), std::string::npos) << wrong.reason;
}

// A delegate declaring a looser budget than the spec's is refused, visibly:
// judged by its own budget it could win a bucket the spec's budget fails.
TEST_F(Arbiter, CandidateWithALooserBudgetIsRefusedAndReported) {
  const KernelSpec spec = must_decode(matmul_yaml(
      "64", "deterministic",
      "candidates:\n"
      "  - kernel_call: {callee: cblas_sgemm, arch: x86, binding: c_abi, provenance: vendor_library,\n"
      "                  accuracy: {kind: tolerance_bounded, tolerance: 1e-2, tolerance_rel: 1e-4},\n"
      "                  determinism: deterministic}\n"));
  Expected<TuneOutcome> o = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  const CandidateResult* loose = find(*o, "kernel_call:cblas_sgemm");
  ASSERT_NE(loose, nullptr);
  EXPECT_EQ(std::string(candidate_outcome_name(loose->outcome)), "dropped: budget looser than the spec's");
  EXPECT_EQ(loose->verdict, "NOT_RUN");
  EXPECT_TRUE(loose->median_ns.empty());
  EXPECT_FALSE(routed_anywhere(*o, "kernel_call:cblas_sgemm"));
  const std::string table = render_tuning_table("mm", kV3, *o);
  EXPECT_NE(table.find("dropped: budget looser than the spec's: declares atol 0.01 rtol 0.0001, looser than the "
                       "spec's atol 0.0001 rtol 0.0001"),
            std::string::npos)
      << table;
  ASSERT_TRUE(o->artifact.has_value());
  EXPECT_NE(o->artifact->metadata.at("tune.outcome.kernel_call:cblas_sgemm").find("looser than the spec's"),
            std::string::npos);
}

// Verdicts drawn with another seed are other evidence: a tuning result is
// reused only for the seed its candidates were judged with.
TEST_F(Arbiter, OracleSeedEntersTheTuningCacheKey) {
  use_fresh_cache("tune-seed");
  if (HasFatalFailure()) return;
  const KernelSpec spec = must_decode(matmul_yaml("64", "deterministic", ""));
  options_.seed = 1;
  Expected<TuneOutcome> first = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(first.ok()) << first.error().message();
  options_.seed = 2;
  Expected<TuneOutcome> other = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(other.ok()) << other.error().message();
  EXPECT_FALSE(other->cache_hit);
  EXPECT_NE(other->cache_key, first->cache_key);
  options_.seed = 1;
  Expected<TuneOutcome> again = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cache_hit);
}

TEST_F(Arbiter, NonX86TargetIsNotMeasuredAndKeepsTheDefault) {
  const KernelSpec spec = must_decode(matmul_yaml("64", "deterministic", ""));
  Expected<TuneOutcome> o = tune_kernel(spec, TargetName{"cuda", "sm_90"}, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  EXPECT_FALSE(o->artifact.has_value());
  EXPECT_NE(o->not_measured.find("x86 targets only"), std::string::npos) << o->not_measured;
  for (const CandidateResult& c : o->candidates) EXPECT_EQ(c.verdict, "NOT_RUN");
}

TEST_F(Arbiter, TuningCacheHitsAndAnyVersionChangeRemeasures) {
  use_fresh_cache("tune-cache");
  if (HasFatalFailure()) return;
  const KernelSpec spec = must_decode(matmul_yaml("64", "deterministic", ""));
  Expected<TuneOutcome> first = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_FALSE(first->cache_hit);
  Expected<TuneOutcome> second = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cache_hit);
  EXPECT_EQ(second->cache_key, first->cache_key);
  EXPECT_EQ(second->routes, first->routes);
  // The same measurements give the same variant, byte for byte and key for key.
  EXPECT_EQ(second->artifact->bytes, first->artifact->bytes);
  EXPECT_EQ(second->artifact->metadata, first->artifact->metadata);
  // A different measurement setup is a different entry.
  options_.measure.rounds = 4;
  Expected<TuneOutcome> third = tune_kernel(spec, kV3, options_);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->cache_hit);
}

TEST(TuningCacheKey, EveryVersionAndInputEntersTheKey) {
  TuningKeyFields base;
  base.identity = std::string(64, 'a');
  base.target = {"x86", "v3"};
  base.device = "AMD EPYC (x86-64-v3)";
  base.driver = "Linux 6.1.0";
  base.tesserac_version = "0.1.0";
  base.toolchain = "Debian clang version 14.0.6";
  base.candidates = {{"generated:default", "sha256 00"}, {"kernel_call:cblas_sgemm", "OpenBLAS 0.3.21"}};
  base.workers = 2;
  base.method = MeasurePlan{}.describe();
  const std::string key = tuning_cache_key(base);
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(tuning_cache_key(base), key);
  std::vector<std::function<void(TuningKeyFields&)>> changes = {
      [](TuningKeyFields& f) { f.identity[0] = 'b'; },
      [](TuningKeyFields& f) { f.target.arch = "v4"; },
      [](TuningKeyFields& f) { f.device = "Intel Xeon (x86-64-v3)"; },
      [](TuningKeyFields& f) { f.driver = "Linux 6.6.0"; },
      [](TuningKeyFields& f) { f.tesserac_version = "0.2.0"; },
      [](TuningKeyFields& f) { f.toolchain = "Debian clang version 15.0.7"; },
      [](TuningKeyFields& f) { f.candidates[0].second = "sha256 01"; },                 // candidate artifact
      [](TuningKeyFields& f) { f.candidates[1].second = "OpenBLAS 0.3.26"; },           // library version
      [](TuningKeyFields& f) { f.candidates.pop_back(); },
      [](TuningKeyFields& f) { f.workers = 4; },
      [](TuningKeyFields& f) { f.oracle_seed = 2; },
  };
  // Every parameter of the measurement enters through its description.
  const std::vector<std::function<void(MeasurePlan&)>> plans = {
      [](MeasurePlan& p) { p.rounds = 9; },         [](MeasurePlan& p) { p.min_sample_ms = 1.0; },
      [](MeasurePlan& p) { p.warm_ms = 2.0; },      [](MeasurePlan& p) { p.unit_us = 20.0; },
      [](MeasurePlan& p) { p.settle_ms = 100.0; },
  };
  for (const auto& change : plans) {
    MeasurePlan p;
    change(p);
    changes.push_back([method = p.describe()](TuningKeyFields& f) { f.method = method; });
  }
  for (size_t i = 0; i < changes.size(); ++i) {
    TuningKeyFields f = base;
    changes[i](f);
    EXPECT_NE(tuning_cache_key(f), key) << "change " << i;
  }
}

TEST(TuningCacheEntry, RoundTripsAndRefusesDamage) {
  TuneOutcome o;
  o.device = "cpu";
  o.workers = 2;
  o.rounds = 3;
  o.method = MeasurePlan{}.describe();
  CandidateResult c;
  c.name = "generated:default";
  c.kind = "generated";
  c.tier = "generated";
  c.outcome = CandidateOutcome::measured;
  c.verdict = "PASS";
  c.median_ns = {123.0};
  o.candidates.push_back(c);
  o.routes = {{0}};
  const std::string text = serialize_tuning(TuningKeyFields{}, o);
  std::optional<TuneOutcome> back = deserialize_tuning(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->routes, o.routes);
  EXPECT_EQ(back->method, o.method);
  EXPECT_EQ(back->candidates[0].median_ns, c.median_ns);
  EXPECT_EQ(back->candidates[0].outcome, CandidateOutcome::measured);
  EXPECT_FALSE(deserialize_tuning(text.substr(0, text.size() / 2)).has_value());
  std::string bad_route = text;
  bad_route.replace(bad_route.find("\"routes\""), std::string::npos, "\"routes\": [[7]]}");
  EXPECT_FALSE(deserialize_tuning(bad_route).has_value());
}

}  // namespace
}  // namespace tsr
