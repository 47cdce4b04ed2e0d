// The executor (tesserart.h, "Executor"; docs/runtime.md): tsr_set_executor's
// argument checks, TSR_NUM_THREADS, and the default pool's contract (every
// task once, worker indexes in range and never shared by two running tasks,
// a busy or nested parallel_for on the calling thread, a forked child).
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "archive_test_support.h"
#include "support/subprocess.h"
#include "test_executor.h"

extern "C" {
#include "../../runtime-stub/src/tsr_executor.h"
}

namespace tsr {
namespace {

void count_task(void* arg, int64_t task, uint32_t) { static_cast<std::atomic<int>*>(arg)[task]++; }

tsr_executor current() {
  tsr_executor e{};
  tsr_executor_current(&e);
  return e;
}

uint32_t affinity_count() {
  cpu_set_t set;
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return static_cast<uint32_t>(std::min(CPU_COUNT(&set), 1024));
}

TEST(Executor, SetExecutorRefusesZeroWorkersAndNullParallelFor) {
  const uint32_t pool = tsr_executor_worker_count();
  testing::ScrambledExecutor scrambled(3);
  tsr_executor zero = scrambled.executor();
  zero.worker_count = 0;
  EXPECT_EQ(tsr_set_executor(&zero), TSR_ERROR_INVALID_ARGUMENT);
  tsr_executor no_fn = scrambled.executor();
  no_fn.parallel_for = nullptr;
  EXPECT_EQ(tsr_set_executor(&no_fn), TSR_ERROR_INVALID_ARGUMENT);
  // A refused executor changes nothing: launches still get the default pool.
  EXPECT_EQ(tsr_executor_worker_count(), pool);
  EXPECT_EQ(current().state, nullptr);
}

TEST(Executor, InstalledExecutorIsCopiedAndNullRestoresTheDefaultPool) {
  const tsr_executor pool = current();
  EXPECT_GE(pool.worker_count, 1u);
  ASSERT_NE(pool.parallel_for, nullptr);
  testing::ScrambledExecutor scrambled(7);
  {
    tsr_executor e = scrambled.executor();
    testing::ExecutorScope scope(e);
    ASSERT_EQ(scope.status(), TSR_OK);
    e.worker_count = 99;   // the stub keeps its own copy
    EXPECT_EQ(tsr_executor_worker_count(), 7u);
    const tsr_executor now = current();
    EXPECT_EQ(now.state, &scrambled);
    std::vector<std::atomic<int>> hits(10);
    now.parallel_for(now.state, 10, count_task, hits.data());
    EXPECT_EQ(scrambled.calls(), 1u);
    EXPECT_EQ(scrambled.tasks(), 10u);
  }
  EXPECT_EQ(tsr_executor_worker_count(), pool.worker_count);
  EXPECT_EQ(current().parallel_for, pool.parallel_for);
}

TEST(Executor, NumThreadsSettingAcceptsOnlyDigitsFrom1To1024) {
  EXPECT_EQ(tsr_num_threads_setting("1", 6), 1u);
  EXPECT_EQ(tsr_num_threads_setting("7", 6), 7u);
  EXPECT_EQ(tsr_num_threads_setting("0007", 6), 7u);
  EXPECT_EQ(tsr_num_threads_setting("1024", 6), 1024u);
  for (const char* bad : {"", "0", "1025", "99999999999999999999", "-2", "+3", " 4", "4 ", "4x", "0x10", "2.5", "four"})
    EXPECT_EQ(tsr_num_threads_setting(bad, 6), 6u) << "'" << bad << "'";
  EXPECT_EQ(tsr_num_threads_setting(nullptr, 6), 6u);
}

// Each setting in a fresh process: the pool reads TSR_NUM_THREADS once.
TEST(Executor, NumThreadsFromTheEnvironmentSizesThePool) {
  const uint32_t cpus = affinity_count();
  struct Case {
    const char* value;   // nullptr: unset
    uint32_t workers;
  };
  const char* old = std::getenv("TSR_NUM_THREADS");
  const std::string saved = old ? old : "";
  for (const Case& c : {Case{"3", 3}, Case{"1", 1}, Case{"1024", 1024}, Case{nullptr, cpus}, Case{"0", cpus},
                        Case{"1025", cpus}, Case{"many", cpus}}) {
    if (c.value) setenv("TSR_NUM_THREADS", c.value, 1);
    else unsetenv("TSR_NUM_THREADS");
    const ProcessResult r = run_process({TSR_WORKER_COUNT_PROBE});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    unsigned workers = 0;
    int indexes = 0;
    ASSERT_EQ(std::sscanf(r.output.c_str(), "workers %u indexes %d", &workers, &indexes), 2) << r.output;
    EXPECT_EQ(workers, c.workers) << (c.value ? c.value : "(unset)");
    EXPECT_GE(indexes, 1);
    EXPECT_LE(static_cast<uint32_t>(indexes), c.workers) << (c.value ? c.value : "(unset)");
  }
  if (old) setenv("TSR_NUM_THREADS", saved.c_str(), 1);
  else unsetenv("TSR_NUM_THREADS");
}

// Records, per task, how often it ran, and whether a worker index ever ran
// two tasks at once or lay out of range.
struct Ledger {
  explicit Ledger(int64_t tasks, uint32_t workers) : runs(tasks), busy(workers) {}
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<int>> busy;
  std::atomic<int> violations{0};
  static void task(void* arg, int64_t t, uint32_t worker) {
    auto* l = static_cast<Ledger*>(arg);
    if (worker >= l->busy.size() || l->busy[worker].exchange(1)) {
      ++l->violations;
    } else {
      for (int spin = 0; spin < 2000; ++spin) asm volatile("");   // long enough to overlap
      l->busy[worker] = 0;
    }
    l->runs[t]++;
  }
};

TEST(DefaultPool, RunsEveryTaskOnceOnDistinctWorkerIndexes) {
  const tsr_executor pool = current();
  for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{1000}}) {
    Ledger l(count, pool.worker_count);
    pool.parallel_for(pool.state, count, Ledger::task, &l);
    EXPECT_EQ(l.violations, 0);
    for (int64_t t = 0; t < count; ++t) ASSERT_EQ(l.runs[t], 1) << "task " << t << " of " << count;
  }
}

// A task that calls parallel_for finds the pool busy: the inner tasks run
// on that task's thread, and the outer call still completes.
TEST(DefaultPool, NestedParallelForRunsOnTheCallingThread) {
  const tsr_executor pool = current();
  struct Outer {
    tsr_executor pool;
    std::atomic<int> inner_runs{0}, foreign{0};
    static void inner(void* arg, int64_t, uint32_t worker) {
      auto* o = static_cast<std::pair<Outer*, std::thread::id>*>(arg);
      if (std::this_thread::get_id() != o->second || worker != 0) ++o->first->foreign;
      ++o->first->inner_runs;
    }
    static void outer(void* arg, int64_t, uint32_t) {
      auto* o = static_cast<Outer*>(arg);
      std::pair<Outer*, std::thread::id> me{o, std::this_thread::get_id()};
      o->pool.parallel_for(o->pool.state, 5, inner, &me);
    }
  } o;
  o.pool = pool;
  pool.parallel_for(pool.state, 8, Outer::outer, &o);
  EXPECT_EQ(o.inner_runs, 40);
  EXPECT_EQ(o.foreign, 0);
}

// Several threads at once: one owns the pool, the others run inline; every
// call completes with every task run once.
TEST(DefaultPool, ConcurrentCallersAllComplete) {
  const tsr_executor pool = current();
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        Ledger l(37, pool.worker_count);
        pool.parallel_for(pool.state, 37, Ledger::task, &l);
        for (int64_t t = 0; t < 37; ++t) wrong += l.runs[t] != 1;
        wrong += l.violations;
      }
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(wrong, 0);
}

// A forked child has none of the pool's threads and runs every task itself.
TEST(DefaultPool, ForkedChildRunsEveryTask) {
  const tsr_executor pool = current();
  Ledger warm(64, pool.worker_count);
  pool.parallel_for(pool.state, 64, Ledger::task, &warm);   // threads started
  const int code = testing::run_in_child([&] {
    Ledger l(64, pool.worker_count);
    pool.parallel_for(pool.state, 64, Ledger::task, &l);
    for (int64_t t = 0; t < 64; ++t)
      if (l.runs[t] != 1) return 1;
    return l.violations == 0 ? 0 : 2;
  });
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace tsr
