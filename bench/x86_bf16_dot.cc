// Experiment for issue 11 item 2 (docs/performance.md, "vdpbf16ps on
// x86:v4"): does a VDPBF16PS micro-kernel (AVX512-BF16: B packed as bf16
// pairs, A broadcast as a pair, two products per lane per instruction) beat
// today's x86:v4 bf16 matmul, which widens bf16 to f32 in packing and runs
// the f32 FMA micro-kernel? "ours" is the real emitted x86:v4 kernel through
// libtesserart on one worker; the peer is the VDPBF16PS kernel below with the
// same GotoBLAS blocking (MR 8, NR 32, KC 256, MC 128, 4 MiB of packed B).
// One thread, interleaved pairs, medians. Exits 0 and prints "skipped" on a
// CPU without AVX512-BF16. Shapes are multiples of the blocking (no tails).
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "driver/stub_routed_target.h"
#include "spec/abi.h"
#include "targets/x86/x86_target.h"
#include "tesserart.h"

namespace {

constexpr int kMr = 8, kNr = 32, kKc = 256, kMc = 128;
constexpr long kBBudget = 4l << 20;
constexpr int kRepeats = 5;

float bf16_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t f32_to_bf16(float v) {   // round to nearest even, as the kernels store
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// A (M x K) and B (K x N), both row-major bf16; C row-major bf16.
struct DotMatmul {
  int64_t n;
  std::vector<uint32_t> bp, ap;   // packed pairs
  std::vector<float> cw;          // f32 partial sums of one MC row block
  int64_t nc;

  explicit DotMatmul(int64_t size) : n(size) {
    nc = std::min<int64_t>(n, kBBudget / (n * 2) / kNr * kNr);
    bp.resize(static_cast<size_t>(n / 2 * nc));
    ap.resize(static_cast<size_t>(kMc * kKc / 2));
    cw.resize(static_cast<size_t>(kMc * nc));
  }

  // Block p0 of panel jr: kc/2 rows of NR pairs (B[k][n], B[k+1][n]).
  void pack_b(const uint16_t* b, int64_t j0) {
    for (int64_t p0 = 0; p0 < n; p0 += kKc)
      for (int64_t jr = 0; jr < nc; jr += kNr) {
        uint32_t* panel = bp.data() + p0 / 2 * nc + jr * (kKc / 2);
        for (int64_t kp = 0; kp < kKc / 2; ++kp)
          for (int c = 0; c < kNr; ++c) {
            const int64_t k = p0 + 2 * kp, col = j0 + jr + c;
            panel[kp * kNr + c] = b[k * n + col] | static_cast<uint32_t>(b[(k + 1) * n + col]) << 16;
          }
      }
  }

  // MR-row panels of (A[m][k], A[m][k+1]) pairs, k-pair major.
  void pack_a(const uint16_t* a, int64_t i0, int64_t p0) {
    for (int64_t ir = 0; ir < kMc; ir += kMr)
      for (int64_t kp = 0; kp < kKc / 2; ++kp)
        for (int r = 0; r < kMr; ++r) {
          const uint16_t* row = a + (i0 + ir + r) * n + p0 + 2 * kp;
          ap[ir * (kKc / 2) + kp * kMr + r] = row[0] | static_cast<uint32_t>(row[1]) << 16;
        }
  }

  __attribute__((target("avx512f,avx512bf16"), noinline)) static void micro(const uint32_t* a, const uint32_t* b,
                                                                            const float* c_in, float* c_out) {
    __m512 c[kMr][2];
    for (int r = 0; r < kMr; ++r)
      for (int j = 0; j < 2; ++j) c[r][j] = c_in ? _mm512_loadu_ps(c_in + r * kNr + 16 * j) : _mm512_setzero_ps();
    for (int kp = 0; kp < kKc / 2; ++kp) {
      const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + 16);
#pragma GCC unroll 8
      for (int r = 0; r < kMr; ++r) {
        const __m512bh ar = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[r]));
        c[r][0] = _mm512_dpbf16_ps(c[r][0], ar, b0);
        c[r][1] = _mm512_dpbf16_ps(c[r][1], ar, b1);
      }
      a += kMr;
      b += kNr;
    }
    for (int r = 0; r < kMr; ++r)
      for (int j = 0; j < 2; ++j) _mm512_storeu_ps(c_out + r * kNr + 16 * j, c[r][j]);
  }

  void run(const uint16_t* a, const uint16_t* b, uint16_t* c) {
    float tile[kMr * kNr];
    for (int64_t j0 = 0; j0 < n; j0 += nc) {
      pack_b(b, j0);
      for (int64_t i0 = 0; i0 < n; i0 += kMc)
        for (int64_t p0 = 0; p0 < n; p0 += kKc) {
          pack_a(a, i0, p0);
          const bool first = p0 == 0, last = p0 + kKc == n;
          for (int64_t jr = 0; jr < nc; jr += kNr)
            for (int64_t ir = 0; ir < kMc; ir += kMr) {
              float* partial = cw.data() + (jr / kNr * (kMc / kMr) + ir / kMr) * (kMr * kNr);
              micro(ap.data() + ir * (kKc / 2), bp.data() + p0 / 2 * nc + jr * (kKc / 2), first ? nullptr : partial,
                    last ? tile : partial);
              if (last)
                for (int r = 0; r < kMr; ++r)
                  for (int j = 0; j < kNr; ++j) c[(i0 + ir + r) * n + j0 + jr + j] = f32_to_bf16(tile[r * kNr + j]);
            }
        }
    }
  }
};

void serial(void*, int64_t count, tsr_task_fn task, void* arg) {
  for (int64_t t = 0; t < count; ++t) task(arg, t, 0);
}

double seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void bench(const tsr::Target& x86, int64_t n) {
  tsr::KernelSpec spec;
  spec.name = "bench_bf16_" + std::to_string(n);
  spec.family = tsr::Family::matmul;
  spec.dtype = tsr::DType::bf16;
  spec.accumulate = tsr::DType::f32;
  tsr::MatmulSpec mm;
  mm.m = tsr::Dim{n, ""}, mm.n = tsr::Dim{n, ""}, mm.k = tsr::Dim{n, ""};
  spec.body = mm;
  tsr::Expected<std::string> src = x86.emit(spec, "v4");
  tsr::Expected<tsr::Artifact> art = src ? x86.compile(spec, "v4", *src) : tsr::Expected<tsr::Artifact>(src.take_error());
  if (!art) return (void)std::printf("  compile failed: %s\n", art.error().message().c_str());
  auto launcher = tsr::make_in_memory_stub_target(x86, spec, *art);
  if (!launcher) return (void)std::printf("  load failed: %s\n", launcher.error().message().c_str());

  const size_t count = static_cast<size_t>(n * n);
  tsr::LaunchArgs args;
  args.buffers.assign(3, std::vector<uint8_t>(count * 2));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < 2; ++i) {
    uint16_t* p = reinterpret_cast<uint16_t*>(args.buffers[i].data());
    for (size_t e = 0; e < count; ++e) p[e] = f32_to_bf16(dist(rng));
  }
  const uint16_t* a = reinterpret_cast<const uint16_t*>(args.buffers[0].data());
  const uint16_t* b = reinterpret_cast<const uint16_t*>(args.buffers[1].data());
  std::vector<uint16_t> c_dot(count);
  DotMatmul dot(n);
  auto widen = [&] {
    if (!(*launcher)->run(spec, *art, args).ok()) std::printf("  run failed\n");
  };
  auto pairs = [&] { dot.run(a, b, c_dot.data()); };
  widen();
  pairs();
  std::vector<double> tw, td;
  for (int r = 0; r < kRepeats; ++r) {
    tw.push_back(seconds(widen));
    td.push_back(seconds(pairs));
  }
  std::sort(tw.begin(), tw.end());
  std::sort(td.begin(), td.end());
  // Accuracy of both against a double reference on a sample of elements.
  const uint16_t* c_widen = reinterpret_cast<const uint16_t*>(args.buffers[2].data());
  double err_w = 0, err_d = 0;
  for (int s = 0; s < 2000; ++s) {
    const int64_t i = static_cast<int64_t>(rng() % n), j = static_cast<int64_t>(rng() % n);
    double ref = 0;
    for (int64_t k = 0; k < n; ++k) ref += double(bf16_to_f32(a[i * n + k])) * bf16_to_f32(b[k * n + j]);
    err_w = std::max(err_w, std::fabs(bf16_to_f32(c_widen[i * n + j]) - ref));
    err_d = std::max(err_d, std::fabs(bf16_to_f32(c_dot[i * n + j]) - ref));
  }
  const double flop = 2.0 * n * n * n, w = tw[tw.size() / 2], d = td[td.size() / 2];
  std::printf("x86:v4 matmul bf16 %lld^3 1 thread: widening (shipped) %8.2f ms %6.1f GFLOP/s | vdpbf16ps %8.2f ms "
              "%6.1f GFLOP/s | speed ratio widening_time / vdpbf16ps_time = %.2f (median of %d pairs; best-of %.2f)\n"
              "        max |C - ref(double)| over 2000 samples: widening %.3g, vdpbf16ps %.3g\n",
              static_cast<long long>(n), w * 1e3, flop / w * 1e-9, d * 1e3, flop / d * 1e-9, w / d, kRepeats,
              tw.front() / td.front(), err_w, err_d);
}

}  // namespace

int main() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) return std::printf("skipped: this CPU lacks AVX-512\n"), 0;
  unsigned eax, ebx, ecx, edx;
  __cpuid_count(7, 1, eax, ebx, ecx, edx);
  if (!(eax & (1u << 5))) return std::printf("skipped: this CPU lacks AVX512-BF16\n"), 0;
  const std::unique_ptr<tsr::Target> x86 = tsr::make_x86_target();
  tsr_executor one{1, serial, nullptr};
  tsr_set_executor(&one);
  for (int64_t n : {1024, 2048}) bench(*x86, n);
  tsr_set_executor(nullptr);
  return 0;
}
