// The measured arbiter (src/arbiter/, docs/arbiter.md) on the x86 target:
// candidates through the oracle with their own budgets, the determinism
// filter, a wrong fast candidate never chosen, routes per shape bucket that
// the stub follows, and the tuning cache's hits and invalidation.
#include <gtest/gtest.h>

#include <filesystem>

#include "arbiter/arbiter.h"
#include "arbiter/stub_candidate.h"
#include "arbiter/tuning_buckets.h"
#include "arbiter/tuning_cache.h"
#include "cache/compile_cache.h"
#include "driver/stub_routed_target.h"
#include "spec_test_util.h"
#include "targets/registry.h"
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
  TuneOptions options_;
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
  auto routed = make_in_memory_stub_target(*find_target("x86"), spec, *o->artifact);
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

TEST_F(Arbiter, NonX86TargetIsNotMeasuredAndKeepsTheDefault) {
  const KernelSpec spec = must_decode(matmul_yaml("64", "deterministic", ""));
  Expected<TuneOutcome> o = tune_kernel(spec, TargetName{"cuda", "sm_90"}, options_);
  ASSERT_TRUE(o.ok()) << o.error().message();
  EXPECT_FALSE(o->artifact.has_value());
  EXPECT_NE(o->not_measured.find("x86 targets only"), std::string::npos) << o->not_measured;
  for (const CandidateResult& c : o->candidates) EXPECT_EQ(c.verdict, "NOT_RUN");
}

TEST_F(Arbiter, TuningCacheHitsAndAnyVersionChangeRemeasures) {
  const std::string dir = ::testing::TempDir() + "/tune-cache-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  Expected<CompileCache> cache = CompileCache::open(dir, kDefaultCacheMaxBytes);
  ASSERT_TRUE(cache.ok());
  options_.cache = &*cache;
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
  std::filesystem::remove_all(dir);
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
