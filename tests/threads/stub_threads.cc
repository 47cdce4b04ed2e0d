// Thread-safety scenarios (stub_threads.h). Threads meet at pthread barriers
// so that first uses really race; every thread checks its own results.
#include "stub_threads.h"

#include <pthread.h>

#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <thread>

#include "tesserart.h"

extern "C" {
#include "../../runtime-stub/src/tsr_internal.h"   // tsr_archive_lazy_counts
}

namespace tsr::threads {
namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// The first failure any thread reports; the scenario's result.
class FirstFailure {
 public:
  void add(const std::string& why) {
    if (why.empty()) return;
    std::lock_guard<std::mutex> hold(lock_);
    if (first_.empty()) first_ = why;
  }
  std::string get() {
    std::lock_guard<std::mutex> hold(lock_);
    return first_;
  }

 private:
  std::mutex lock_;
  std::string first_;
};

class Barrier {
 public:
  explicit Barrier(unsigned count) { pthread_barrier_init(&barrier_, nullptr, count); }
  ~Barrier() { pthread_barrier_destroy(&barrier_); }
  void wait() { pthread_barrier_wait(&barrier_); }

 private:
  pthread_barrier_t barrier_;
};

// Runs body(0) .. body(count - 1) on their own threads and joins them.
void run_threads(int count, const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t) threads.emplace_back(body, t);
  for (std::thread& t : threads) t.join();
}

// A fresh archive from source, or NULL with the reason in *why.
tsr_archive* open_fresh(const ArchiveSource& source, std::string* why) {
  tsr_archive* a = nullptr;
  char msg[256] = "";
  tsr_open_options options{0, msg, sizeof msg};
  tsr_status s = source.path.empty()
                     ? tsr_archive_open_memory(source.bytes.data(), source.bytes.size(), &options, &a)
                     : tsr_archive_open_file(source.path.c_str(), &options, &a);
  if (s != TSR_OK) *why = format("open returned %d (%s)", int(s), msg);
  return a;
}

std::string kernel_name(int factor) { return "vadd" + std::to_string(factor); }

// Loads vadd<factor>; NULL with the reason in *why.
tsr_kernel* load(tsr_archive* a, int factor, std::string* why) {
  tsr_kernel* k = nullptr;
  tsr_status s = tsr_kernel_load(a, kernel_name(factor).c_str(), nullptr, &k);
  if (s != TSR_OK)
    *why = format("load of %s returned %d (%s)", kernel_name(factor).c_str(), int(s), tsr_archive_last_message(a));
  return k;
}

// One launch of vadd<factor> on n elements of this thread's own buffers,
// inputs derived from seed; "" when every output is in0 + factor * in1.
std::string launch_and_check(tsr_kernel* k, int factor, int64_t n, int seed) {
  std::vector<float> x(static_cast<size_t>(n)), y(x.size()), out(x.size(), -1.f);
  for (int64_t j = 0; j < n; ++j) {
    x[size_t(j)] = float(seed % 1000 + j);
    y[size_t(j)] = float(j % 7 + 1);
  }
  tsr_buffer_arg args[3] = {{x.data(), x.size() * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {y.data(), y.size() * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {out.data(), out.size() * 4, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  tsr_status s = tsr_kernel_launch(k, args, 3, &n, 1, nullptr);
  std::string name = kernel_name(factor);
  if (s != TSR_OK)
    return format("%s n=%lld: launch returned %d (%s)", name.c_str(), (long long)n, int(s), tsr_kernel_last_message(k));
  for (int64_t j = 0; j < n; ++j) {
    float want = x[size_t(j)] + float(factor) * y[size_t(j)];   // small integers: exact
    if (out[size_t(j)] != want)
      return format("%s n=%lld: out[%lld] = %g, expected %g", name.c_str(), (long long)n, (long long)j,
                    double(out[size_t(j)]), double(want));
  }
  return "";
}

constexpr int kLaunches = 100;   // per thread

std::string same_kernel_launches_impl(const ArchiveSource& source) {
  std::string why;
  tsr_archive* a = open_fresh(source, &why);
  if (!a) return why;
  tsr_kernel* k = load(a, 1, &why);
  FirstFailure failure;
  if (k) {
    run_threads(kThreads, [&](int t) {
      for (int i = 0; i < kLaunches; ++i)
        failure.add(launch_and_check(k, 1, 1 + (t * 37 + i * 11) % 300, t * 100 + i));
    });
  }
  tsr_kernel_unload(k);
  tsr_archive_close(a);
  return k ? failure.get() : why;
}

std::string different_kernel_launches_impl(const ArchiveSource& source) {
  std::string why;
  tsr_archive* a = open_fresh(source, &why);
  if (!a) return why;
  tsr_kernel* kernels[kKernels] = {};
  for (int f = 1; f <= kKernels && why.empty(); ++f) kernels[f - 1] = load(a, f, &why);
  FirstFailure failure;
  if (why.empty()) {
    run_threads(kThreads, [&](int t) {
      for (int i = 0; i < kLaunches; ++i) {
        int f = (t + i) % kKernels + 1;
        failure.add(launch_and_check(kernels[f - 1], f, 1 + (t * 29 + i * 13) % 300, t * 100 + i));
      }
    });
  }
  for (tsr_kernel* k : kernels) tsr_kernel_unload(k);
  tsr_archive_close(a);
  return why.empty() ? failure.get() : why;
}

std::string counts_text(const tsr_lazy_counts& c) {
  return format("kernel checks %u, blob checks %u, blob reads %u", c.kernel_checks, c.blob_checks, c.blob_reads);
}

// Loads vadd<factor> after the barrier, launches it once and unloads it.
void load_launch_unload(tsr_archive* a, int factor, int seed, Barrier* start, FirstFailure* failure) {
  start->wait();
  std::string why;
  tsr_kernel* k = load(a, factor, &why);
  failure->add(k ? launch_and_check(k, factor, 100 + seed % 50, seed) : why);
  tsr_kernel_unload(k);
}

std::string concurrent_first_loads_impl(const ArchiveSource& source) {
  std::string why;
  tsr_archive* a = open_fresh(source, &why);
  if (!a) return why;
  tsr_lazy_counts before, after;
  tsr_archive_lazy_counts(a, &before);
  constexpr int kLoaders = 4 * kKernels;   // four threads race to each kernel's first use
  Barrier start(kLoaders);
  FirstFailure failure;
  run_threads(kLoaders, [&](int t) { load_launch_unload(a, t % kKernels + 1, t, &start, &failure); });
  tsr_archive_lazy_counts(a, &after);
  tsr_archive_close(a);
  if (!failure.get().empty()) return failure.get();
  const uint32_t reads = source.path.empty() ? 0 : kKernels;   // memory archives read nothing
  if (before.kernel_checks || before.blob_checks || before.blob_reads)
    return "a fresh archive had done lazy work at open: " + counts_text(before);
  if (after.kernel_checks != kKernels || after.blob_checks != kKernels || after.blob_reads != reads)
    return format("%d threads loading %d kernels: %s; expected %d, %d, %u (once per kernel)", kLoaders, kKernels,
                  counts_text(after).c_str(), kKernels, kKernels, reads);
  return "";
}

constexpr int kCheckTrials = 3000;   // a race on a microseconds-long check shows in a few percent of trials

std::string racing_kernel_checks_impl(const ArchiveSource& source) {
  Barrier step(kThreads);
  tsr_archive* a = nullptr;   // written by thread 0 between the barriers
  FirstFailure failure;
  run_threads(kThreads, [&](int t) {
    for (int trial = 0; trial < kCheckTrials; ++trial) {
      if (t == 0) {
        std::string why;
        a = open_fresh(source, &why);
        failure.add(why);
      }
      step.wait();
      tsr_kernel_info info;
      tsr_status s = a ? tsr_archive_kernel_at(a, size_t(t % kKernels), &info) : TSR_OK;
      if (s != TSR_OK) failure.add(format("trial %d: kernel_at(%d) returned %d", trial, t % kKernels, int(s)));
      step.wait();
      if (t != 0 || !a) continue;
      tsr_lazy_counts counts;
      tsr_archive_lazy_counts(a, &counts);
      if (counts.kernel_checks != kKernels)
        failure.add(format("trial %d: %d threads on %d kernels ran %u record checks", trial, kThreads, kKernels,
                           counts.kernel_checks));
      tsr_archive_close(a);
      a = nullptr;
    }
  });
  return failure.get();
}

std::string verify_during_loads_impl(const ArchiveSource& source) {
  std::string why;
  tsr_archive* a = open_fresh(source, &why);
  if (!a) return why;
  Barrier start(kThreads);
  FirstFailure failure;
  run_threads(kThreads, [&](int t) {
    if (t % 2 == 1) {
      load_launch_unload(a, t / 2 % kKernels + 1, t, &start, &failure);
      return;
    }
    char msg[256] = "unset";
    start.wait();
    tsr_status s = tsr_archive_verify(a, msg, sizeof msg);
    if (s != TSR_OK || msg[0]) failure.add(format("verify returned %d (%s)", int(s), msg));
  });
  tsr_lazy_counts after;
  tsr_archive_lazy_counts(a, &after);
  tsr_archive_close(a);
  if (!failure.get().empty()) return failure.get();
  // Each blob: at most one first-use CRC and one full check (verify's
  // SHA-256 also satisfies a later first use), at most one read.
  const uint32_t max_reads = source.path.empty() ? 0 : kKernels;
  if (after.kernel_checks != kKernels || after.blob_checks < kKernels || after.blob_checks > 2 * kKernels ||
      after.blob_reads > max_reads)
    return format("verify during loads: %s; expected %d kernel checks, %d..%d blob checks, at most %u reads",
                  counts_text(after).c_str(), kKernels, kKernels, 2 * kKernels, max_reads);
  return "";
}

// What thread t's last failures on the archive and on vadd1 said.
struct Messages {
  std::string archive, kernel;
};

// A failing load and a failing launch whose messages name thread t.
std::string fail_as(tsr_archive* a, tsr_kernel* k, int t, Messages* expect) {
  std::string missing = "missing_t" + std::to_string(t);
  tsr_kernel* none = nullptr;
  tsr_status s = tsr_kernel_load(a, missing.c_str(), nullptr, &none);
  if (s != TSR_ERROR_NOT_FOUND) return format("thread %d: load of %s returned %d", t, missing.c_str(), int(s));
  expect->archive = "no kernel named '" + missing + "' in the archive";
  alignas(64) static const float in[64] = {};
  float out[64];
  size_t short_bytes = 4 * size_t(t + 1);   // below the 256 that n = 64 needs
  tsr_buffer_arg args[3] = {{const_cast<float*>(in), short_bytes, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {const_cast<float*>(in), sizeof in, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {out, sizeof out, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  int64_t n = 64;
  s = tsr_kernel_launch(k, args, 3, &n, 1, nullptr);
  if (s != TSR_ERROR_BUFFER_TOO_SMALL) return format("thread %d: short launch returned %d", t, int(s));
  expect->kernel = format("vadd1: buffer 'in0' has %zu bytes, needs 256", short_bytes);
  return "";
}

std::string check_messages(tsr_archive* a, tsr_kernel* k, int t, const Messages& expect, const char* when) {
  std::string archive = tsr_archive_last_message(a), kernel = tsr_kernel_last_message(k);
  if (archive != expect.archive)
    return format("thread %d %s: archive message '%s', expected '%s'", t, when, archive.c_str(), expect.archive.c_str());
  if (kernel != expect.kernel)
    return format("thread %d %s: kernel message '%s', expected '%s'", t, when, kernel.c_str(), expect.kernel.c_str());
  return "";
}

// A successful load of vadd2 and launch of vadd1: both clear this thread's messages.
std::string succeed_as(tsr_archive* a, tsr_kernel* k, int t, Messages* expect) {
  std::string why;
  tsr_kernel* other = load(a, 2, &why);
  tsr_kernel_unload(other);
  if (!other) return why;
  why = launch_and_check(k, 1, 64, t);
  *expect = Messages{};
  return why;
}

constexpr int kMessageRounds = 50;

std::string per_thread_messages_impl(const ArchiveSource& source) {
  std::string why;
  tsr_archive* a = open_fresh(source, &why);
  if (!a) return why;
  tsr_kernel* k = load(a, 1, &why);
  if (!k) {
    tsr_archive_close(a);
    return why;
  }
  FirstFailure failure;
  // Lockstep pairs: one thread fails, the other succeeds and fails in
  // between, then the first still reads its own messages. Roles swap each round.
  Barrier step(2);
  run_threads(2, [&](int t) {
    Messages mine;
    for (int r = 0; r < kMessageRounds; ++r) {
      bool first = (t + r) % 2 == 0;
      if (first) failure.add(fail_as(a, k, t, &mine));
      step.wait();
      if (!first) {
        failure.add(succeed_as(a, k, t, &mine));
        failure.add(check_messages(a, k, t, mine, "after its success"));
        failure.add(fail_as(a, k, t, &mine));
      }
      step.wait();
      if (first) failure.add(check_messages(a, k, t, mine, "after the other thread's calls"));
    }
  });
  // Free-running: every thread fails and succeeds among the others.
  run_threads(kThreads, [&](int t) {
    Messages mine;
    for (int r = 0; r < kMessageRounds; ++r) {
      failure.add(fail_as(a, k, t, &mine));
      std::this_thread::yield();
      failure.add(check_messages(a, k, t, mine, "after its failure"));
      failure.add(succeed_as(a, k, t, &mine));
      failure.add(check_messages(a, k, t, mine, "after its success"));
    }
  });
  // The main thread made no failing call: it sees no other thread's message.
  failure.add(check_messages(a, k, -1, Messages{}, "(main, no failure)"));
  tsr_kernel_unload(k);
  tsr_archive_close(a);
  return failure.get();
}

// Prefixes a scenario's failure with the archive source it ran on.
std::string on(const ArchiveSource& source, const std::string& why) {
  return why.empty() ? why : source.name + " archive: " + why;
}

}  // namespace

std::string same_kernel_launches(const ArchiveSource& s) { return on(s, same_kernel_launches_impl(s)); }
std::string different_kernel_launches(const ArchiveSource& s) { return on(s, different_kernel_launches_impl(s)); }
std::string concurrent_first_loads(const ArchiveSource& s) { return on(s, concurrent_first_loads_impl(s)); }
std::string racing_kernel_checks(const ArchiveSource& s) { return on(s, racing_kernel_checks_impl(s)); }
std::string verify_during_loads(const ArchiveSource& s) { return on(s, verify_during_loads_impl(s)); }
std::string per_thread_messages(const ArchiveSource& s) { return on(s, per_thread_messages_impl(s)); }

std::vector<ArchiveSource> sources_for(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ArchiveSource memory{"memory", "", {}};
  memory.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return {ArchiveSource{"file", path, {}}, memory};
}

const std::vector<Scenario>& all_scenarios() {
  static const std::vector<Scenario> scenarios = {
      {"same_kernel_launches", same_kernel_launches},
      {"different_kernel_launches", different_kernel_launches},
      {"concurrent_first_loads", concurrent_first_loads},
      {"racing_kernel_checks", racing_kernel_checks},
      {"verify_during_loads", verify_during_loads},
      {"per_thread_messages", per_thread_messages},
  };
  return scenarios;
}

}  // namespace tsr::threads
