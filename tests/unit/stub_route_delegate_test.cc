// Delegates at run time (issue 14 item 4; docs/runtime.md, "Routes and
// delegates"): OpenBLAS's cblas_sgemm and oneDNN's dnnl_sgemm called by the
// stub through dlopen for every operand layout, and what each delegate
// policy does when the library is hidden or lacks the symbol.
#include <barrier>
#include <thread>

#include "route_fixture.h"

namespace tsr::testing {
namespace {

constexpr double kTol = 1e-4;

class StubRouteDelegate : public RouteFixture {
 protected:
  // The route that tries `callee` first, then the generated entry.
  Keys delegate_first(const std::string& callee, Layout a, Layout b, const std::string& alpha = "1") {
    return merged({{"route.0", "delegate:" + callee + " entry:" + mm_name(a, b) + "_tsr_entry"}},
                  delegate_keys(callee, a, b, alpha));
  }
  void runs_every_layout(const std::string& callee, const char* soname) {
    if (std::string why = library_missing(soname); !why.empty()) GTEST_SKIP() << why;
    ScopedEnv no_pin("TSR_DELEGATE_DIR", nullptr);
    for (auto [a, b] : {std::pair{Layout::row, Layout::row}, {Layout::row, Layout::col}, {Layout::col, Layout::row}}) {
      SCOPED_TRACE(mm_name(a, b));
      ASSERT_EQ(load(a, b, delegate_first(callee, a, b)), TSR_OK) << message_;
      EXPECT_EQ(route(5, 9), "delegate:" + callee);
      for (int64_t m : {1, 7, 33, 64}) {   // M is a runtime scalar
        Result r = launch(m, 9 + m % 5, uint32_t(m));
        EXPECT_EQ(r.status, TSR_OK) << tsr_kernel_last_message(kernel_);
        EXPECT_LT(r.max_error, kTol) << "M=" << m;
      }
      EXPECT_EQ(tsr_route_resolutions(kernel_), 1u);
      TearDown();
    }
  }
};

TEST_F(StubRouteDelegate, CblasSgemmRunsForEveryLayout) { runs_every_layout("cblas_sgemm", "libopenblas.so.0"); }
TEST_F(StubRouteDelegate, DnnlSgemmRunsForEveryLayout) { runs_every_layout("dnnl_sgemm", "libdnnl.so.2"); }

// alpha reaches the library: a mapping with alpha=2 doubles the product,
// which the generated entry (no scale epilogue) never does.
TEST_F(StubRouteDelegate, AlphaIsPassedToTheDelegate) {
  for (auto [callee, soname] : {std::pair{"cblas_sgemm", "libopenblas.so.0"}, {"dnnl_sgemm", "libdnnl.so.2"}}) {
    if (std::string why = library_missing(soname); !why.empty()) GTEST_SKIP() << why;
    ASSERT_EQ(load(Layout::row, Layout::col, delegate_first(callee, Layout::row, Layout::col, "2")), TSR_OK) << message_;
    Result doubled = launch(6, 10, 3);
    ASSERT_EQ(doubled.status, TSR_OK);
    TearDown();
    ASSERT_EQ(load(Layout::row, Layout::col, delegate_first(callee, Layout::row, Layout::col, "1")), TSR_OK) << message_;
    Result plain = launch(6, 10, 3);
    ASSERT_EQ(plain.status, TSR_OK);
    for (size_t i = 0; i < plain.c.size(); ++i) EXPECT_NEAR(doubled.c[i], 2 * plain.c[i], 1e-4) << callee << " " << i;
    TearDown();
  }
}

// TSR_DELEGATE_DIR = an empty directory hides the library.
TEST_F(StubRouteDelegate, HiddenLibraryFallsBackUnderPolicy0) {
  std::filesystem::path empty = library_dir("hidden", "", "");
  ScopedEnv pin("TSR_DELEGATE_DIR", empty.c_str());
  ASSERT_EQ(load(Layout::row, Layout::row, delegate_first("cblas_sgemm", Layout::row, Layout::row), 0), TSR_OK) << message_;
  EXPECT_EQ(route(8, 8), "entry:mm_rr_tsr_entry");
  Result r = launch(8, 11);
  EXPECT_EQ(r.status, TSR_OK);
  EXPECT_LT(r.max_error, kTol);
  EXPECT_EQ(tsr_route_resolutions(kernel_), 1u);   // the failure is remembered, not retried per launch
  std::filesystem::remove_all(empty);
}

TEST_F(StubRouteDelegate, HiddenLibraryIsAnErrorUnderPolicy1) {
  std::filesystem::path empty = library_dir("hidden", "", "");
  ScopedEnv pin("TSR_DELEGATE_DIR", empty.c_str());
  ASSERT_EQ(load(Layout::row, Layout::row, delegate_first("cblas_sgemm", Layout::row, Layout::row), 1), TSR_OK) << message_;
  Result r = launch(8, 11);
  EXPECT_EQ(r.status, TSR_ERROR_DELEGATE_UNAVAILABLE);
  EXPECT_EQ(int(TSR_ERROR_DELEGATE_UNAVAILABLE), 44);
  EXPECT_STREQ(tsr_status_string(TSR_ERROR_DELEGATE_UNAVAILABLE), "delegate library unavailable");
  const std::string expected = "delegate 'cblas_sgemm' unavailable (libraries: libopenblas.so.0 libopenblas.so in "
                               "TSR_DELEGATE_DIR=" + empty.string() + "): " + empty.string() +
                               "/libopenblas.so.0: cannot open shared object file: No such file or directory";
  // The message is cut to the stub's message size where TMPDIR is long.
  EXPECT_EQ(tsr_kernel_last_message(kernel_), expected.substr(0, TSR_MESSAGE_SIZE - 1));
  EXPECT_EQ(r.c, std::vector<float>(r.c.size(), -99.f));   // nothing ran
  tsr_status s;
  EXPECT_EQ(route(8, 11, &s), "");
  EXPECT_EQ(s, TSR_ERROR_DELEGATE_UNAVAILABLE);
  std::filesystem::remove_all(empty);
}

// A fake libopenblas.so.0 whose cblas_sgemm writes 42: policy -1 never calls
// it (nor resolves anything), policy 0 does, from the pinned directory only.
TEST_F(StubRouteDelegate, PolicyNeverCallsNoDelegateAndTheDirectoryPinsTheLibrary) {
  std::filesystem::path dir = library_dir(
      "fake", "libopenblas.so.0",
      "void cblas_sgemm(int o, int ta, int tb, int m, int n, int k, float al, const float* a, int lda,\n"
      "                 const float* b, int ldb, float be, float* c, int ldc) {\n"
      "  for (int i = 0; i < m * n; ++i) c[i] = 42.0f;\n}\n");
  ScopedEnv pin("TSR_DELEGATE_DIR", dir.c_str());
  const Keys keys = delegate_first("cblas_sgemm", Layout::row, Layout::row);
  ASSERT_EQ(load(Layout::row, Layout::row, keys, -1), TSR_OK) << message_;
  EXPECT_EQ(route(4, 4), "entry:mm_rr_tsr_entry");
  Result r = launch(4, 6);
  EXPECT_EQ(r.status, TSR_OK);
  EXPECT_LT(r.max_error, kTol);
  EXPECT_EQ(tsr_route_resolutions(kernel_), 0u);
  TearDown();
  ASSERT_EQ(load(Layout::row, Layout::row, keys, 0), TSR_OK) << message_;
  EXPECT_EQ(route(4, 4), "delegate:cblas_sgemm");
  r = launch(4, 6);
  EXPECT_EQ(r.status, TSR_OK);
  EXPECT_EQ(r.c, std::vector<float>(24, 42.f));
  std::filesystem::remove_all(dir);
}

TEST_F(StubRouteDelegate, LibraryWithoutTheSymbolFallsBack) {
  std::filesystem::path dir = library_dir("nosym", "libopenblas.so.0", "int openblas_get_num_threads(void) { return 1; }\n");
  ScopedEnv pin("TSR_DELEGATE_DIR", dir.c_str());
  const Keys keys = delegate_first("cblas_sgemm", Layout::row, Layout::row);
  ASSERT_EQ(load(Layout::row, Layout::row, keys, 0), TSR_OK) << message_;
  EXPECT_EQ(route(3, 5), "entry:mm_rr_tsr_entry");
  Result r = launch(3, 5);
  EXPECT_EQ(r.status, TSR_OK);
  EXPECT_LT(r.max_error, kTol);
  TearDown();
  ASSERT_EQ(load(Layout::row, Layout::row, keys, 1), TSR_OK) << message_;
  EXPECT_EQ(launch(3, 5).status, TSR_ERROR_DELEGATE_UNAVAILABLE);
  const std::string expected = "delegate 'cblas_sgemm' unavailable (libraries: libopenblas.so.0 libopenblas.so in "
                               "TSR_DELEGATE_DIR=" + dir.string() + "): " + dir.string() +
                               "/libopenblas.so.0: undefined symbol: cblas_sgemm";
  EXPECT_EQ(tsr_kernel_last_message(kernel_), expected.substr(0, TSR_MESSAGE_SIZE - 1));
  std::filesystem::remove_all(dir);
}

// Eight threads launch a freshly loaded kernel at once: the library is
// resolved once, and every launch computes the right product.
TEST_F(StubRouteDelegate, ConcurrentFirstLaunchesResolveOnce) {
  for (auto [callee, soname] : {std::pair{"cblas_sgemm", "libopenblas.so.0"}, {"dnnl_sgemm", "libdnnl.so.2"}}) {
    if (std::string why = library_missing(soname); !why.empty()) GTEST_SKIP() << why;
    ScopedEnv no_pin("TSR_DELEGATE_DIR", nullptr);
    ASSERT_EQ(load(Layout::row, Layout::row, delegate_first(callee, Layout::row, Layout::row)), TSR_OK) << message_;
    constexpr int kThreads = 8;
    std::barrier start(kThreads);
    std::vector<Result> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        results[t] = launch(16 + t, 12 + t, uint32_t(t));
      });
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(results[t].status, TSR_OK) << callee << " thread " << t;
      EXPECT_LT(results[t].max_error, kTol) << callee << " thread " << t;
    }
    EXPECT_EQ(tsr_route_resolutions(kernel_), 1u) << callee;
    EXPECT_EQ(route(1, 1), "delegate:" + std::string(callee));
    TearDown();
  }
}

TEST_F(StubRouteDelegate, PolicyOutsideItsRangeIsRefusedAtLoad) {
  EXPECT_EQ(load(Layout::row, Layout::row, {}, 2), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message_, "tsr_select_options.delegates is 2 (allowed: -1, 0, 1)");
  EXPECT_EQ(kernel_, nullptr);
}

}  // namespace
}  // namespace tsr::testing
