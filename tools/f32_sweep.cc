// The f32 sweep of f32_sweep.h: threads take chunks of inputs from a shared
// counter (the references' cost varies by binade: erfcl's tail, exp's
// saturated ranges), each keeps its own tallies, merged at the end so the
// result does not depend on the thread count.
#include "tools/f32_sweep.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "spec/half.h"

namespace tsr::vector_math_check {
namespace {

// 64 Ki inputs: a quarter of a millisecond of vector code, many seconds of
// references, so chunks balance the threads without contention on the counter.
constexpr uint64_t kChunk = 1u << 16;
constexpr uint64_t kPatterns = 1ull << 32;

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

bool special_mismatch(float y, long double r) {
  if (std::isnan(r) || std::isnan(y)) return std::isnan(r) != std::isnan(y);
  const float rounded = static_cast<float>(r);
  return (std::isinf(rounded) || std::isinf(y)) && rounded != y;
}

void merge(SweepResult& into, const SweepResult& part) {
  into.inputs += part.inputs;
  into.over_1_ulp += part.over_1_ulp;
  into.over_2_ulp += part.over_2_ulp;
  into.special_mismatches += part.special_mismatches;
  if (part.max_ulp > into.max_ulp || (part.max_ulp == into.max_ulp && part.worst_bits < into.worst_bits)) {
    into.max_ulp = part.max_ulp;
    into.worst_bits = part.worst_bits;
  }
}

// Inputs first .. last - 1 (indices: the bit pattern is index * stride).
void sweep_chunk(VectorFn fn, Reference ref, uint64_t stride, uint64_t first, uint64_t last,
                 std::vector<float>& xs, std::vector<float>& ys, SweepResult& tally) {
  const uint64_t n = last - first;
  const uint64_t padded = (n + 15) / 16 * 16;   // the loop takes whole vectors; the padding is not tallied
  xs.assign(padded, 0.0f);
  ys.resize(padded);
  for (uint64_t i = 0; i < n; ++i) xs[i] = f32_from_bits(static_cast<uint32_t>((first + i) * stride));
  fn(xs.data(), ys.data(), static_cast<int64_t>(padded));
  for (uint64_t i = 0; i < n; ++i) {
    const long double r = ref(xs[i]);
    const double e = f32_ulp_error(ys[i], r);
    const uint32_t bits = static_cast<uint32_t>((first + i) * stride);
    // A thread's inputs ascend, so its first input at a new maximum is its lowest.
    if (e > tally.max_ulp) {
      tally.max_ulp = e;
      tally.worst_bits = bits;
    }
    tally.over_1_ulp += e > 1.0;
    tally.over_2_ulp += e > 2.0;
    tally.special_mismatches += special_mismatch(ys[i], r);
  }
  tally.inputs += n;
}

}  // namespace

SweepResult sweep_f32(VectorFn fn, Reference ref, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  const uint64_t count = (kPatterns + options.stride - 1) / options.stride;
  const uint64_t chunks = (count + kChunk - 1) / kChunk;
  std::atomic<uint64_t> next{0};
  std::vector<SweepResult> tallies(std::max(1u, options.threads));
  auto work = [&](SweepResult& tally) {
    std::vector<float> xs, ys;
    for (uint64_t c = next++; c < chunks; c = next++)
      sweep_chunk(fn, ref, options.stride, c * kChunk, std::min(count, (c + 1) * kChunk), xs, ys, tally);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < tallies.size(); ++t) threads.emplace_back(work, std::ref(tallies[t]));
  work(tallies[0]);
  for (std::thread& t : threads) t.join();
  SweepResult result;
  for (const SweepResult& t : tallies) merge(result, t);
  result.cpu_seconds = process_cpu_seconds() - cpu_start;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tsr::vector_math_check
