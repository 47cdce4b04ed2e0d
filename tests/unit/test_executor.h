// Executors for tests (tesserart.h, "Executor"): one that runs each
// parallel_for's tasks on N threads in a scrambled order and checks the
// contract as it goes, and a scope that installs an executor and restores
// the default pool after.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "tesserart.h"

namespace tsr::testing {

class ScrambledExecutor {
 public:
  // `workers` threads per call (the caller is worker 0); task order is a
  // permutation drawn from `seed` and the call's number.
  explicit ScrambledExecutor(uint32_t workers, uint32_t seed = 1)
      : workers_(workers), seed_(seed), in_use_(new std::atomic<int>[workers]) {
    for (uint32_t w = 0; w < workers; ++w) in_use_[w] = 0;
  }

  tsr_executor executor() { return tsr_executor{workers_, &ScrambledExecutor::parallel_for, this}; }
  uint64_t calls() const { return calls_; }
  uint64_t tasks() const { return tasks_; }
  // Contract breaches seen: a worker index run twice at once, or out of range.
  uint64_t violations() const { return violations_; }

 private:
  static void parallel_for(void* state, int64_t count, tsr_task_fn task, void* arg) {
    auto* self = static_cast<ScrambledExecutor*>(state);
    const uint64_t call = self->calls_++;
    self->tasks_ += static_cast<uint64_t>(count);
    std::vector<int64_t> order(static_cast<size_t>(count));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937(self->seed_ * 7919u + static_cast<uint32_t>(call)));
    std::atomic<size_t> next{0};
    auto work = [&](uint32_t worker) {
      for (size_t i; (i = next++) < order.size();) {
        if (self->in_use_[worker].exchange(1)) ++self->violations_;
        task(arg, order[i], worker);
        self->in_use_[worker] = 0;
      }
    };
    std::vector<std::thread> threads;
    for (uint32_t w = 1; w < self->workers_; ++w) threads.emplace_back(work, w);
    work(0);
    for (std::thread& t : threads) t.join();
  }

  uint32_t workers_, seed_;
  std::unique_ptr<std::atomic<int>[]> in_use_;
  std::atomic<uint64_t> calls_{0}, tasks_{0}, violations_{0};
};

// Installs `executor` for the scope's lifetime, then restores the default pool.
class ExecutorScope {
 public:
  explicit ExecutorScope(const tsr_executor& executor) { status_ = tsr_set_executor(&executor); }
  ~ExecutorScope() { tsr_set_executor(nullptr); }
  ExecutorScope(const ExecutorScope&) = delete;
  ExecutorScope& operator=(const ExecutorScope&) = delete;
  tsr_status status() const { return status_; }

 private:
  tsr_status status_;
};

}  // namespace tsr::testing
