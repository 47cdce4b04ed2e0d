// OpenMP over chunks of 32,768 elements handed out dynamically, as our
// elementwise tasks are: on an idle machine as fast as one static span per
// thread, and on a host shared with other work not held back by the thread
// that was descheduled. Compiled -O3 -march=native -fopenmp.
#include "bandwidth.h"

#include <omp.h>

namespace tsr::bench {

namespace {
constexpr int64_t kChunk = 32768;
}  // namespace

void omp_threads(int threads) { omp_set_num_threads(threads); }
int omp_threads_now() { return omp_get_max_threads(); }

void bandwidth_f32_1in(const float* __restrict x, float* __restrict y, int64_t n, float s) {
#pragma omp parallel for schedule(dynamic, kChunk)
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s;
}

void bandwidth_f32_2in(const float* __restrict a, const float* __restrict b, float* __restrict c, int64_t n) {
#pragma omp parallel for schedule(dynamic, kChunk)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void bandwidth_u16_1in(const uint16_t* __restrict x, uint16_t* __restrict y, int64_t n) {
#pragma omp parallel for schedule(dynamic, kChunk)
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint16_t>(x[i] ^ 0x8000u);
}

void bandwidth_u16_2in(const uint16_t* __restrict a, const uint16_t* __restrict b, uint16_t* __restrict c, int64_t n) {
#pragma omp parallel for schedule(dynamic, kChunk)
  for (int64_t i = 0; i < n; ++i) c[i] = static_cast<uint16_t>(a[i] ^ b[i]);
}

uint64_t bandwidth_read_2in(const void* a, const void* b, int64_t bytes) {
  const uint64_t* __restrict x = static_cast<const uint64_t*>(a);
  const uint64_t* __restrict y = static_cast<const uint64_t*>(b);
  const int64_t n = bytes / 8;
  uint64_t acc = 0;
#pragma omp parallel for schedule(dynamic, kChunk) reduction(^ : acc)
  for (int64_t i = 0; i < n; ++i) acc ^= x[i] ^ y[i];
  return acc;
}

}  // namespace tsr::bench
