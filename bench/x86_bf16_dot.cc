// Issue 11 item 2 (docs/performance.md, "vdpbf16ps on x86:v4"): the x86:v4
// bf16 matmul with its VDPBF16PS path (AVX512-BF16: B packed as bf16 pairs, A
// broadcast as a pair, two products per lane per instruction) against the same
// emitted kernel built with TSR_BF16DOT_OFF, which takes the widening path
// (bf16 to f32 in packing, the f32 FMA micro-kernel) that CPUs without
// AVX512-BF16 run. Both are real artifacts launched through libtesserart on
// one worker; interleaved pairs, medians. Prints "skipped" on a CPU without
// AVX512-BF16, where both builds would run the widening path.
#include <cpuid.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "launch/stub_launcher.h"
#include "spec/abi.h"
#include "x86/x86_target.h"
#include "tesserart.h"

namespace {

constexpr int kRepeats = 9;

float bf16_to_f32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t f32_to_bf16(float v) {   // round to nearest even
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

void serial(void*, int64_t count, tsr_task_fn task, void* arg) {
  for (int64_t t = 0; t < count; ++t) task(arg, t, 0);
}

double seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Loaded {
  tsr::Artifact artifact;
  std::unique_ptr<tsr::StubLauncher> launcher;
};

// The x86:v4 kernel of `spec`, with `prefix` put before the emitted source.
bool load(const tsr::Target& x86, const tsr::KernelSpec& spec, const std::string& prefix, Loaded& out) {
  tsr::Expected<std::string> src = x86.emit(spec, "v4");
  if (!src) return std::printf("  emit failed: %s\n", src.error().message().c_str()), false;
  tsr::Expected<tsr::Artifact> art = x86.compile(spec, "v4", prefix + *src);
  if (!art) return std::printf("  compile failed: %s\n", art.error().message().c_str()), false;
  auto launcher = tsr::make_in_memory_stub_launcher(x86, spec, *art);
  if (!launcher) return std::printf("  load failed: %s\n", launcher.error().message().c_str()), false;
  out = Loaded{*art, std::move(*launcher)};
  return true;
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
  Loaded dot, widen;
  if (!load(x86, spec, "", dot) || !load(x86, spec, "#define TSR_BF16DOT_OFF 1\n", widen)) return;

  const size_t count = static_cast<size_t>(n * n);
  tsr::LaunchArgs args;
  args.buffers.assign(3, std::vector<uint8_t>(count * 2));
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < 2; ++i) {
    uint16_t* p = reinterpret_cast<uint16_t*>(args.buffers[i].data());
    for (size_t e = 0; e < count; ++e) p[e] = f32_to_bf16(dist(rng));
  }
  tsr::LaunchArgs widen_args = args;
  auto run = [&](Loaded& k, tsr::LaunchArgs& a) {
    if (!k.launcher->launch(spec, k.artifact, a).ok()) std::printf("  run failed\n");
  };
  run(widen, widen_args);
  run(dot, args);
  std::vector<double> tw, td;
  for (int r = 0; r < kRepeats; ++r) {
    tw.push_back(seconds([&] { run(widen, widen_args); }));
    td.push_back(seconds([&] { run(dot, args); }));
  }
  std::sort(tw.begin(), tw.end());
  std::sort(td.begin(), td.end());
  // Both against a double reference on a sample of elements.
  const uint16_t* a = reinterpret_cast<const uint16_t*>(args.buffers[0].data());
  const uint16_t* b = reinterpret_cast<const uint16_t*>(args.buffers[1].data());
  const uint16_t* c_dot = reinterpret_cast<const uint16_t*>(args.buffers[2].data());
  const uint16_t* c_widen = reinterpret_cast<const uint16_t*>(widen_args.buffers[2].data());
  double err_w = 0, err_d = 0;
  for (int s = 0; s < 2000; ++s) {
    const int64_t i = static_cast<int64_t>(rng() % n), j = static_cast<int64_t>(rng() % n);
    double ref = 0;
    for (int64_t k = 0; k < n; ++k) ref += double(bf16_to_f32(a[i * n + k])) * bf16_to_f32(b[k * n + j]);
    err_w = std::max(err_w, std::fabs(bf16_to_f32(c_widen[i * n + j]) - ref));
    err_d = std::max(err_d, std::fabs(bf16_to_f32(c_dot[i * n + j]) - ref));
  }
  size_t differ = 0;
  for (size_t e = 0; e < count; ++e) differ += c_dot[e] != c_widen[e];
  const double flop = 2.0 * n * n * n, w = tw[tw.size() / 2], d = td[td.size() / 2];
  std::printf("x86:v4 matmul bf16 %lld^3 1 thread: widening %8.2f ms %6.1f GFLOP/s | vdpbf16ps %8.2f ms %6.1f GFLOP/s"
              " | speed ratio widening_time / vdpbf16ps_time = %.2f (median of %d pairs; best-of %.2f)\n"
              "        max |C - ref(double)| over 2000 samples: widening %.3g, vdpbf16ps %.3g; %zu of %zu outputs differ\n",
              static_cast<long long>(n), w * 1e3, flop / w * 1e-9, d * 1e3, flop / d * 1e-9, w / d, kRepeats,
              tw.front() / td.front(), err_w, err_d, differ, count);
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
