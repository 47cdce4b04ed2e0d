// Route keys (archive 2.3, docs/archive-format.md "VMET"): buckets of a
// runtime scalar pick their own steps, entry steps are found at load, and
// every malformed route fails the load with TSR_ERROR_CORRUPT and a message
// naming the key (never a crash: each load runs in a forked child first).
#include "route_fixture.h"

namespace tsr::testing {
namespace {

class StubRouteParse : public RouteFixture {};

TEST_F(StubRouteParse, WithoutRouteKeysTheVarsEntryRuns) {
  ASSERT_EQ(load(Layout::row, Layout::row, {}), TSR_OK) << message_;
  EXPECT_EQ(route(3, 3), "entry:mm_rr_tsr_entry");
  Result r = launch(3, 7);
  EXPECT_EQ(r.status, TSR_OK);
  EXPECT_LT(r.max_error, 1e-4);
  tsr_status s;
  int64_t negative[2] = {-1, 2};
  const char* step = nullptr;
  EXPECT_EQ(tsr_kernel_route(kernel_, negative, 2, &step), TSR_ERROR_INVALID_SCALAR);
  EXPECT_EQ(tsr_kernel_route(kernel_, negative, 1, &step), TSR_ERROR_ARG_COUNT);
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "mm_rr: expected 2 scalars, got 1");
  EXPECT_EQ(tsr_kernel_route(kernel_, nullptr, 2, &step), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(tsr_kernel_route(nullptr, negative, 2, &step), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(route(0, 0, &s), "entry:mm_rr_tsr_entry");
  EXPECT_EQ(s, TSR_OK);
}

// M <= 8: the fill entry; 8 < M <= 32: the delegate (where installed), else
// the generated entry; M > 32: the generated entry.
TEST_F(StubRouteParse, BucketsPickTheirStepsByTheRuntimeScalar) {
  const Keys keys = merged({{"route.dim", "M"},
                            {"route.bounds", "8,32"},
                            {"route.0", "entry:mm_rr_tsr_entry_fill"},
                            {"route.1", "delegate:cblas_sgemm  entry:mm_rr_tsr_entry"},
                            {"route.2", "entry:mm_rr_tsr_entry"}},
                           delegate_keys("cblas_sgemm", Layout::row, Layout::row));
  ScopedEnv no_pin("TSR_DELEGATE_DIR", nullptr);
  ASSERT_EQ(load(Layout::row, Layout::row, keys), TSR_OK) << message_;
  const std::string middle = library_missing("libopenblas.so.0").empty() ? "delegate:cblas_sgemm" : "entry:mm_rr_tsr_entry";
  const std::vector<std::pair<int64_t, std::string>> expected = {
      {0, "entry:mm_rr_tsr_entry_fill"}, {1, "entry:mm_rr_tsr_entry_fill"}, {8, "entry:mm_rr_tsr_entry_fill"},
      {9, middle}, {32, middle}, {33, "entry:mm_rr_tsr_entry"}, {1000, "entry:mm_rr_tsr_entry"}};
  for (const auto& [m, step] : expected) {
    EXPECT_EQ(route(m, 5), step) << "M=" << m;
    if (m == 0) continue;
    Result r = launch(m, 5, uint32_t(m));
    ASSERT_EQ(r.status, TSR_OK) << tsr_kernel_last_message(kernel_);
    if (m <= 8) EXPECT_EQ(r.c, std::vector<float>(size_t(m * 5), 7.f)) << "M=" << m;
    else EXPECT_LT(r.max_error, 1e-4) << "M=" << m;
  }
}

// An empty route.bounds is no bound: one bucket (what a plan of one bucket writes).
TEST_F(StubRouteParse, EmptyBoundsMeanOneBucket) {
  ASSERT_EQ(load(Layout::row, Layout::row,
                 {{"route.dim", "M"}, {"route.bounds", ""}, {"route.0", "entry:mm_rr_tsr_entry_fill"}}),
            TSR_OK) << message_;
  for (int64_t m : {1, 1000}) EXPECT_EQ(route(m, 1), "entry:mm_rr_tsr_entry_fill");
  EXPECT_EQ(launch(2, 2).c, std::vector<float>(4, 7.f));
}

// A bucket whose only step is a delegate that cannot run ends on the VARS entry.
TEST_F(StubRouteParse, TheVarsEntryEndsEveryBucket) {
  std::filesystem::path empty = library_dir("hidden", "", "");
  ScopedEnv pin("TSR_DELEGATE_DIR", empty.c_str());
  const Keys keys = merged({{"route.0", "delegate:dnnl_sgemm"}}, delegate_keys("dnnl_sgemm", Layout::row, Layout::row));
  ASSERT_EQ(load(Layout::row, Layout::row, keys), TSR_OK) << message_;
  EXPECT_EQ(route(2, 2), "entry:mm_rr_tsr_entry");
  EXPECT_LT(launch(2, 3).max_error, 1e-4);
  std::filesystem::remove_all(empty);
}

TEST_F(StubRouteParse, AnEntryStepTheBlobLacksFailsTheLoad) {
  EXPECT_EQ(load(Layout::row, Layout::row, {{"route.0", "entry:mm_rr_tsr_entry_t9 entry:mm_rr_tsr_entry"}}),
            TSR_ERROR_LOAD_FAILED);
  EXPECT_EQ(message_, "kernel 'mm_rr' variant x86:v2: route.0: x86 artifact does not export 'mm_rr_tsr_entry_t9'");
  EXPECT_EQ(kernel_, nullptr);
}

struct Malformed {
  Keys keys;
  std::string message;   // after "kernel 'mm_rr' variant x86:v2: "
};

TEST_F(StubRouteParse, MalformedRoutesAreCorrupt) {
  const Keys blas = delegate_keys("cblas_sgemm", Layout::row, Layout::row);
  const Keys first = {{"route.0", "delegate:cblas_sgemm entry:mm_rr_tsr_entry"}};
  auto with_args = [&](const std::string& args) {
    return merged(merged(first, blas), {{"delegate.cblas_sgemm.args", args}});
  };
  const std::string ok_args = "a=a:row b=b:row c=c m=M n=N k=24 alpha=1";
  const std::vector<Malformed> cases = {
      {{{"route.0", "jump:mm_rr_tsr_entry"}},
       "route.0: step 'jump:mm_rr_tsr_entry' is neither delegate:<callee> nor entry:<symbol>"},
      {{{"route.0", "entry:"}}, "route.0: step 'entry:' is neither delegate:<callee> nor entry:<symbol>"},
      {{{"route.0", "entry:mm-rr"}}, "route.0: step 'entry:mm-rr' is neither delegate:<callee> nor entry:<symbol>"},
      {{{"route.0", "   "}}, "route.0 lists no step"},
      {{{"route.dim", "M"}, {"route.bounds", "32,8"}}, "route.bounds '32,8' is not a list of ascending positive integers"},
      {{{"route.dim", "M"}, {"route.bounds", "8,8"}}, "route.bounds '8,8' is not a list of ascending positive integers"},
      {{{"route.dim", "M"}, {"route.bounds", "0,8"}}, "route.bounds '0,8' is not a list of ascending positive integers"},
      {{{"route.dim", "M"}, {"route.bounds", "8,"}}, "route.bounds '8,' is not a list of ascending positive integers"},
      {{{"route.dim", "M"}, {"route.bounds", "-4"}}, "route.bounds '-4' is not a list of ascending positive integers"},
      {{{"route.dim", "Q"}, {"route.0", "entry:mm_rr_tsr_entry"}}, "route.dim 'Q' is not a runtime scalar of kernel 'mm_rr'"},
      {{{"route.dim", "a"}, {"route.0", "entry:mm_rr_tsr_entry"}}, "route.dim 'a' is not a runtime scalar of kernel 'mm_rr'"},
      {{{"route.bounds", "8"}, {"route.0", "entry:mm_rr_tsr_entry"}}, "route.bounds '8' without route.dim"},
      {{{"route.dim", "M"}, {"route.bounds", "8"}, {"route.0", "entry:mm_rr_tsr_entry"}},
       "route.1 is missing (2 buckets)"},
      {{{"route.dim", "M"}}, "route.0 is missing (1 bucket)"},
      {{{"route.0", "entry:mm_rr_tsr_entry"}, {"route.1", "entry:mm_rr_tsr_entry"}}, "unknown route key 'route.1' (1 bucket)"},
      {{{"route.0", "entry:mm_rr_tsr_entry"}, {"route.01", "entry:mm_rr_tsr_entry"}}, "unknown route key 'route.01' (1 bucket)"},
      {{{"route.0", "entry:mm_rr_tsr_entry"}, {"route.order", "x"}}, "unknown route key 'route.order' (1 bucket)"},
      {first, "route names delegate 'cblas_sgemm' but delegate.cblas_sgemm.convention is missing"},
      {merged(first, {{"delegate.cblas_sgemm.convention", "cblas_sgemm"}, {"delegate.cblas_sgemm.library", "x.so"}}),
       "route names delegate 'cblas_sgemm' but delegate.cblas_sgemm.args is missing"},
      {{{"route.0", "delegate:9lives"}}, "route.0: step 'delegate:9lives': the callee is not a C identifier"},
      {merged(merged(first, blas), {{"delegate.cblas_sgemm.convention", "sgemm_"}}),
       "delegate.cblas_sgemm.convention 'sgemm_' is not cblas_sgemm or dnnl_sgemm"},
      {merged(merged(first, blas), {{"delegate.cblas_sgemm.library", "  "}}), "delegate.cblas_sgemm.library names no library"},
      {with_args("a=a:row b=b:row c=c m=M n=N k=24"), "delegate.cblas_sgemm.args lacks alpha="},
      {with_args(ok_args + " beta=0"), "delegate.cblas_sgemm.args: 'beta=0' is not one of a= b= c= m= n= k= alpha=, once each"},
      {with_args(ok_args + " m=M"), "delegate.cblas_sgemm.args: 'm=M' is not one of a= b= c= m= n= k= alpha=, once each"},
      {with_args("a b=b:row c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: 'a' is not one of a= b= c= m= n= k= alpha=, once each"},
      {with_args("a=a:diag b=b:row c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: 'a=a:diag' is not a=<buffer>:<row|col>"},
      {with_args("a=x:row b=b:row c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: 'a=x:row' is not a=<buffer>:<row|col>"},
      {with_args("a=a b=b:row c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: 'a=a' is not a=<buffer>:<row|col>"},
      {with_args("a=a:row b=b:row c=out m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: 'c=out' names no buffer"},
      {with_args("a=a:row b=b:row c=c m=Z n=N k=24 alpha=1"),
       "delegate.cblas_sgemm.args: 'm=Z' is neither a runtime scalar nor an integer"},
      {with_args("a=a:row b=b:row c=c m=M n=N k=-24 alpha=1"),
       "delegate.cblas_sgemm.args: 'k=-24' is neither a runtime scalar nor an integer"},
      {with_args("a=a:row b=b:row c=c m=M n=N k=24 alpha=one"), "delegate.cblas_sgemm.args: 'alpha=one' is not a decimal number"},
      {with_args("a=a:row b=b:row c=c m=M n=N k=24 alpha=1e99"), "delegate.cblas_sgemm.args: 'alpha=1e99' is not a decimal number"},
      // Mappings the ABI contradicts: the library would read or write outside the buffers.
      {with_args("a=a:col b=b:row c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: buffer 'a' is not an f32 input shaped [k, m]"},
      {with_args("a=a:row b=b:col c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: buffer 'b' is not an f32 input shaped [n, k]"},
      {with_args("a=a:row b=b:row c=c m=N n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: buffer 'a' is not an f32 input shaped [m, k]"},
      {with_args("a=a:row b=b:row c=c m=M n=N k=32 alpha=1"), "delegate.cblas_sgemm.args: buffer 'a' is not an f32 input shaped [m, k]"},
      {with_args("a=c:row b=b:row c=c m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: buffer 'c' is not an f32 input shaped [m, k]"},
      {with_args("a=a:row b=b:row c=a m=M n=N k=24 alpha=1"), "delegate.cblas_sgemm.args: buffer 'a' is not an f32 output shaped [m, n]"},
  };
  for (const Malformed& m : cases) {
    SCOPED_TRACE(m.message);
    Keys keys = m.keys;
    int rc = run_in_child([&] { return int(load(Layout::row, Layout::row, keys)); });
    EXPECT_EQ(rc, TSR_ERROR_CORRUPT) << "the load died by signal " << -rc;
    EXPECT_EQ(load(Layout::row, Layout::row, keys), TSR_ERROR_CORRUPT);
    EXPECT_EQ(message_, "kernel 'mm_rr' variant x86:v2: " + m.message);
    EXPECT_EQ(kernel_, nullptr);
    TearDown();
  }
}

// A call that ignores a buffer (here the bias) cannot compute the kernel.
TEST_F(StubRouteParse, ADelegateThatLeavesABufferUnusedIsCorrupt) {
  bias_ = true;
  const Keys keys = merged({{"route.0", "delegate:cblas_sgemm entry:mm_rr_bias_tsr_entry"}},
                           delegate_keys("cblas_sgemm", Layout::row, Layout::row));
  int rc = run_in_child([&] { return int(load(Layout::row, Layout::row, keys)); });
  EXPECT_EQ(rc, TSR_ERROR_CORRUPT) << "the load died by signal " << -rc;
  EXPECT_EQ(load(Layout::row, Layout::row, keys), TSR_ERROR_CORRUPT);
  EXPECT_EQ(message_, "kernel 'mm_rr_bias' variant x86:v2: delegate.cblas_sgemm.args leaves buffer 'bias' unused");
  TearDown();
  EXPECT_EQ(load(Layout::row, Layout::row, {{"route.0", "entry:mm_rr_bias_tsr_entry"}}), TSR_OK) << message_;
}

}  // namespace
}  // namespace tsr::testing
