// The memory-bound peers: plain loops over the same bytes a kernel reads and
// writes, built into the bench with -O3 -march=native and OpenMP (what a user
// writes for "just move the data"), so a kernel at 1.0x runs at the speed of
// memory for its traffic.
#pragma once

#include <cstdint>

namespace tsr::bench {

// Threads of the OpenMP runtime, shared by these loops and oneDNN.
void omp_threads(int threads);
int omp_threads_now();

// Reads x, writes y (one input, one output of n f32): y = x * s.
void bandwidth_f32_1in(const float* x, float* y, int64_t n, float s);
// Reads a and b, writes c (two inputs, one output): c = a + b.
void bandwidth_f32_2in(const float* a, const float* b, float* c, int64_t n);
// Reads x, writes y (n bf16 / 16-bit elements): y = -x, a sign flip.
void bandwidth_u16_1in(const uint16_t* x, uint16_t* y, int64_t n);
// Reads a and b, writes c (n 16-bit elements each): c = a ^ b.
void bandwidth_u16_2in(const uint16_t* a, const uint16_t* b, uint16_t* c, int64_t n);

// Reads a and b (`bytes` each, a multiple of 8) and writes nothing: the
// traffic of streaming attention's K and V once. Returns an xor of their
// 64-bit words so the reads cannot be dropped.
uint64_t bandwidth_read_2in(const void* a, const void* b, int64_t bytes);

}  // namespace tsr::bench
