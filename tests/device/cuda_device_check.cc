// Device-side checks for the cuda target, run by tests/device/cuda_check.sh on a
// machine with an NVIDIA GPU (CUDA Driver API reference; cuBLAS API reference
// for cublasGemmEx):
//   bench    generated kernels vs peers measured in-run
// (The oracle through the runtime stub is `tesserac test --archive`.)
// Built by tests/device/prepare_carry.sh against libtesserac_core.a.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "oracle/oracle.h"
#include "spec/abi.h"
#include "spec/spec_loader.h"
#include "support/diagnostics.h"
#include "targets/cuda/cuda_driver.h"
#include "targets/cuda/cuda_runner.h"
#include "targets/cuda/cuda_target.h"
#include "targets/cuda/cuda_toolkit.h"
#include "tesserart.h"

namespace tsr {
namespace {

// ---- benchmarks ------------------------------------------------------------

using cuda::CUdeviceptr;

struct Gpu {
  const cuda::CudaDriver& d = cuda::cuda_driver();
  cuda::CUcontext ctx = nullptr;
  bool open() {
    if (!d.loaded) {
      std::printf("bench: NOT RUN: %s\n", d.why_unavailable.c_str());
      return false;
    }
    d.api.cuDevicePrimaryCtxRetain(&ctx, d.devices[0].handle);
    d.api.cuCtxPushCurrent(ctx);
    return true;
  }
  // Median ms of `reps` event-timed calls of fn after `warmup` calls.
  template <typename F>
  double time(F fn, int warmup, int reps) {
    cuda::CUevent a = nullptr, b = nullptr;
    d.api.cuEventCreate(&a, 0);
    d.api.cuEventCreate(&b, 0);
    for (int i = 0; i < warmup; ++i) fn();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      float ms = 0;
      d.api.cuEventRecord(a, nullptr);
      fn();
      d.api.cuEventRecord(b, nullptr);
      d.api.cuEventSynchronize(b);
      d.api.cuEventElapsedTime(&ms, a, b);
      t.push_back(ms);
    }
    d.api.cuEventDestroy(a);
    d.api.cuEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

Dim st(int64_t v) { return Dim{v, ""}; }

Expected<Artifact> build(const Target& t, const KernelSpec& spec) {
  Expected<std::string> src = t.emit(spec, "sm_90");
  if (!src) return src.take_error();
  return t.compile(spec, "sm_90", *src);
}

LaunchArgs zero_args(const KernelSpec& spec, double fill) {
  const KernelAbi abi = kernel_abi(spec);
  LaunchArgs args;
  for (const Binding* b : abi.buffers()) {
    const int64_t n = *abi.element_count(*b, {});
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * dtype_size(b->dtype));
    // A small constant keeps every op finite (0x3c00 f16 / 0x3f80 bf16 = 1.0).
    if (fill != 0 && dtype_size(b->dtype) == 2)
      for (size_t i = 0; i + 1 < bytes.size(); i += 2) bytes[i + 1] = spec.dtype == DType::bf16 ? 0x3c : 0x2c;
    args.buffers.push_back(std::move(bytes));
  }
  return args;
}

double median_ms(const KernelSpec& spec, const Artifact& art, int warmup, int reps) {
  Expected<double> ms = cuda::time_cuda_artifact(spec, art, zero_args(spec, 1), warmup, reps);
  if (!ms) {
    std::printf("bench: %s: %s\n", spec.name.c_str(), ms.error().message().c_str());
    return -1;
  }
  return *ms;
}

using CublasGemmEx = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int,
                             int, const void*, void*, int, int, int, int);

int bench() {
  Gpu gpu;
  if (!gpu.open()) return 2;
  std::unique_ptr<Target> t = make_cuda_target();
  const auto& api = gpu.d.api;
  std::printf("bench: device %s (sm_%d)\n", gpu.d.devices[0].name.c_str(), gpu.d.devices[0].compute_capability);
  int misses = 0;

  // 1. Elementwise add (bf16, 2^28 elements: 3 x 512 MiB) vs a D2D copy of the same bytes.
  {
    KernelSpec s;
    s.name = "bench_add_bf16";
    s.family = Family::elementwise;
    s.dtype = DType::bf16;
    const int64_t n = int64_t{1} << 28;
    s.body = ElementwiseSpec{{Op::add}, st(n)};
    Expected<Artifact> art = build(*t, s);
    const double ms = art ? median_ms(s, *art, 5, 20) : -1;
    // add moves 3n elements (2 reads, 1 write); a copy of 1.5n elements moves the same 3n.
    const size_t copy_bytes = static_cast<size_t>(n) * 2 * 3 / 2;
    CUdeviceptr src = 0, dst = 0;
    api.cuMemAlloc(&src, copy_bytes);
    api.cuMemAlloc(&dst, copy_bytes);
    const double copy = gpu.time([&] { api.cuMemcpyDtoD(dst, src, copy_bytes); }, 5, 20);
    api.cuMemFree(src);
    api.cuMemFree(dst);
    const double ratio = ms > 0 ? copy / ms : 0;
    std::printf("bench: elementwise add bf16 n=2^28: %.3f ms, copy of same bytes %.3f ms (%.0f GB/s): "
                "ratio %.3f (goal >= 0.85) %s\n",
                ms, copy, 2.0 * copy_bytes / copy / 1e6, ratio, ratio >= 0.85 ? "MET" : "MISSED");
    misses += ratio < 0.85;
    // 2. rmsnorm bf16 [32768, 8192] (512 MiB in, 512 MiB out) vs the same copy bandwidth.
    KernelSpec r;
    r.name = "bench_rmsnorm_bf16";
    r.family = Family::rowwise;
    r.dtype = DType::bf16;
    r.accumulate = DType::f32;
    RowwiseSpec rw;
    rw.op = RowOp::rmsnorm;
    rw.rows = st(32768);
    rw.cols = st(8192);
    rw.eps = 1e-6;
    rw.affine = true;
    r.body = rw;
    Expected<Artifact> rart = build(*t, r);
    const double rms = rart ? median_ms(r, *rart, 5, 20) : -1;
    const size_t rbytes = size_t{32768} * 8192 * 2;
    api.cuMemAlloc(&src, rbytes);
    api.cuMemAlloc(&dst, rbytes);
    const double rcopy = gpu.time([&] { api.cuMemcpyDtoD(dst, src, rbytes); }, 5, 20);
    api.cuMemFree(src);
    api.cuMemFree(dst);
    const double rratio = rms > 0 ? rcopy / rms : 0;
    std::printf("bench: rmsnorm bf16 32768x8192: %.3f ms, copy %.3f ms: ratio %.3f (goal >= 0.7) %s\n", rms, rcopy,
                rratio, rratio >= 0.7 ? "MET" : "MISSED");
    misses += rratio < 0.7;
  }

  // 3. bf16 matmul (A row, B col, f32 accumulate) vs cublasGemmEx on the same buffers.
  void* cublas = dlopen("libcublas.so.13", RTLD_NOW);
  if (!cublas) cublas = dlopen((cuda::cuda_root() + "/lib64/libcublas.so.13").c_str(), RTLD_NOW);
  if (!cublas) cublas = dlopen("libcublas.so.12", RTLD_NOW);
  auto create = cublas ? reinterpret_cast<int (*)(void**)>(dlsym(cublas, "cublasCreate_v2")) : nullptr;
  auto gemm = cublas ? reinterpret_cast<CublasGemmEx>(dlsym(cublas, "cublasGemmEx")) : nullptr;
  void* handle = nullptr;
  if (create) create(&handle);
  for (int64_t size : {int64_t{4096}, int64_t{8192}}) {
    KernelSpec s;
    s.name = "bench_gemm_bf16_" + std::to_string(size);
    s.family = Family::matmul;
    s.dtype = DType::bf16;
    s.accumulate = DType::f32;
    MatmulSpec m;
    m.m = m.n = m.k = st(size);
    m.a = Layout::row;
    m.b = Layout::col;
    s.body = m;
    Expected<Artifact> art = build(*t, s);
    const double ms = art ? median_ms(s, *art, 3, 10) : -1;
    double blas = -1;
    if (handle && gemm) {
      const size_t bytes = static_cast<size_t>(size * size) * 2;
      CUdeviceptr a = 0, b = 0, c = 0;
      api.cuMemAlloc(&a, bytes);
      api.cuMemAlloc(&b, bytes);
      api.cuMemAlloc(&c, bytes);
      const float alpha = 1.0f, beta = 0.0f;
      const int n = static_cast<int>(size);
      // Row-major C[M,N] is column-major C^T[N,M] = Bmat^T . A^T: B stored [N,K]
      // is column-major K x N (op T, ld K); A stored [M,K] is column-major K x M.
      constexpr int kOpN = 0, kOpT = 1, kBf16 = 14, kCompute32F = 68, kAlgoDefault = -1;
      blas = gpu.time([&] {
        gemm(handle, kOpT, kOpN, n, n, n, &alpha, reinterpret_cast<void*>(b), kBf16, n, reinterpret_cast<void*>(a),
             kBf16, n, &beta, reinterpret_cast<void*>(c), kBf16, n, kCompute32F, kAlgoDefault);
      }, 3, 10);
      api.cuMemFree(a);
      api.cuMemFree(b);
      api.cuMemFree(c);
    }
    const double tflops = ms > 0 ? 2.0 * size * size * size / (ms * 1e9) : 0;
    const double ratio = ms > 0 && blas > 0 ? blas / ms : 0;
    std::printf("bench: matmul bf16 %lld^3: %.3f ms (%.0f TFLOP/s), cublasGemmEx %.3f ms: ratio %.3f%s\n",
                static_cast<long long>(size), ms, tflops, blas, ratio,
                size == 4096 ? (ratio >= 0.5 ? " (goal >= 0.5) MET" : " (goal >= 0.5) MISSED") : "");
    if (size == 4096) misses += ratio < 0.5;
    if (!gemm) std::printf("bench: cuBLAS not loadable: no peer for matmul\n");
  }
  std::printf("bench: %d performance goal(s) missed\n", misses);
  return 0;
}

}  // namespace
}  // namespace tsr

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "bench") == 0) return tsr::bench();
  std::fprintf(stderr, "usage: %s bench\n", argv[0]);
  return 2;
}
