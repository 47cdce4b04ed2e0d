// Benchmarks of generated cuda kernels against peers measured in the same
// run (tests/device/cuda_check.sh; CUDA Driver API reference for events,
// cuBLAS API reference for cublasGemmEx). The kernels run the way users run
// them: loaded by libtesserart, launched with tsr_kernel_launch_device on
// device memory and a stream; CUDA events on that stream, warm-up, medians.
// Ratios are reported, not gated.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "cuda_device_launch.h"
#include "compile/compile.h"
#include "cuda/cuda_toolkit.h"

namespace tsr::device_check {

namespace {

Dim st(int64_t v) { return Dim{v, ""}; }

// Median ms of `reps` event-timed calls of fn on `stream`, after `warmup` calls.
double time_ms(const Driver& cu, void* stream, const std::function<void()>& fn, int warmup, int reps) {
  void *a = nullptr, *b = nullptr;
  cu.event_create(&a, 0);
  cu.event_create(&b, 0);
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    cu.event_record(a, stream);
    fn();
    cu.event_record(b, stream);
    cu.event_sync(b);
    cu.event_elapsed(&ms, a, b);
    t.push_back(ms);
  }
  cu.event_destroy(a);
  cu.event_destroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The kernel's median time on device buffers filled with 1.0 (every op stays finite).
double kernel_ms(const Driver& cu, void* stream, const KernelSpec& spec, const std::string& arch, int warmup, int reps) {
  Expected<Artifact> art = compile_for_target(spec, {"cuda", arch});
  if (!art) return std::printf("bench: %s: %s\n", spec.name.c_str(), art.error().message().c_str()), -1.0;
  StubKernel k(spec, *art, 0);
  if (!k.get()) return std::printf("bench: %s: %s\n", spec.name.c_str(), k.why_not().c_str()), -1.0;
  const KernelAbi abi = kernel_abi(spec);
  std::vector<size_t> sizes;
  for (const Binding* b : abi.buffers()) sizes.push_back(static_cast<size_t>(*abi.element_count(*b, {})) * dtype_size(b->dtype));
  DeviceBuffers dev(cu, spec, sizes);
  if (!dev.ok()) return std::printf("bench: %s: cuMemAlloc failed\n", spec.name.c_str()), -1.0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<uint8_t> ones(sizes[i]);
    for (size_t j = 0; j + 1 < ones.size(); j += 2) ones[j + 1] = spec.dtype == DType::bf16 ? 0x3f : 0x3c;
    for (size_t j = 0; j < ones.size(); j += 2) ones[j] = spec.dtype == DType::bf16 ? 0x80 : 0x00;
    cu.htod(dev.args[i].ptr, ones.data(), ones.size());
  }
  tsr_status status = TSR_OK;
  const double ms = time_ms(cu, stream, [&] {
    const tsr_status s = tsr_kernel_launch_device(k.get(), 0, stream, dev.args.data(), dev.args.size(), nullptr, 0);
    if (s != TSR_OK) status = s;
  }, warmup, reps);
  if (status != TSR_OK) return std::printf("bench: %s: %s\n", spec.name.c_str(), tsr_status_string(status)), -1.0;
  return ms;
}

// Median ms of a device-to-device copy of `bytes`.
double copy_ms(const Driver& cu, void* stream, size_t bytes) {
  CUdeviceptr src = 0, dst = 0;
  cu.mem_alloc(&src, bytes);
  cu.mem_alloc(&dst, bytes);
  const double ms = time_ms(cu, stream, [&] { cu.dtod(dst, src, bytes); }, 5, 20);
  cu.mem_free(src);
  cu.mem_free(dst);
  return ms;
}

using CublasGemmEx = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*, int,
                             int, const void*, void*, int, int, int, int);

}  // namespace

int bench(const Driver& cu) {
  tsr_cuda_device_desc d{};
  tsr_cuda_describe(0, &d);
  const std::string arch = "sm_" + std::to_string(d.compute_capability);
  std::printf("bench: device %s (%s)\n", d.name, arch.c_str());
  void* stream = nullptr;
  cu.stream_create(&stream, 1);
  int misses = 0;

  // 1. Elementwise add (bf16, 2^28 elements: 3 x 512 MiB) vs a D2D copy of the same bytes.
  KernelSpec s;
  s.name = "bench_add_bf16";
  s.family = Family::elementwise;
  s.dtype = DType::bf16;
  const int64_t n = int64_t{1} << 28;
  s.body = ElementwiseSpec{{Op::add}, st(n)};
  const double ms = kernel_ms(cu, stream, s, arch, 5, 20);
  // add moves 3n elements (2 reads, 1 write); a copy of 1.5n elements moves the same 3n.
  const size_t copy_bytes = static_cast<size_t>(n) * 2 * 3 / 2;
  const double copy = copy_ms(cu, stream, copy_bytes);
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
  const double rms = kernel_ms(cu, stream, r, arch, 5, 20);
  const double rcopy = copy_ms(cu, stream, size_t{32768} * 8192 * 2);
  const double rratio = rms > 0 ? rcopy / rms : 0;
  std::printf("bench: rmsnorm bf16 32768x8192: %.3f ms, copy %.3f ms: ratio %.3f (goal >= 0.7) %s\n", rms, rcopy,
              rratio, rratio >= 0.7 ? "MET" : "MISSED");
  misses += rratio < 0.7;

  // 3. bf16 matmul (A row, B col, f32 accumulate) vs cublasGemmEx on the same sizes.
  void* cublas = dlopen("libcublas.so.13", RTLD_NOW);
  if (!cublas) cublas = dlopen((cuda::cuda_root() + "/lib64/libcublas.so.13").c_str(), RTLD_NOW);
  if (!cublas) cublas = dlopen("libcublas.so.12", RTLD_NOW);
  auto create = cublas ? reinterpret_cast<int (*)(void**)>(dlsym(cublas, "cublasCreate_v2")) : nullptr;
  auto set_stream = cublas ? reinterpret_cast<int (*)(void*, void*)>(dlsym(cublas, "cublasSetStream_v2")) : nullptr;
  auto gemm = cublas ? reinterpret_cast<CublasGemmEx>(dlsym(cublas, "cublasGemmEx")) : nullptr;
  void* handle = nullptr;
  if (create) create(&handle);
  if (handle && set_stream) set_stream(handle, stream);
  for (int64_t size : {int64_t{4096}, int64_t{8192}}) {
    const KernelSpec m = bf16_gemm_spec("bench_gemm_bf16_" + std::to_string(size), size);
    const double gms = kernel_ms(cu, stream, m, arch, 3, 10);
    double blas = -1;
    if (handle && gemm) {
      const size_t bytes = static_cast<size_t>(size * size) * 2;
      CUdeviceptr a = 0, b = 0, c = 0;
      cu.mem_alloc(&a, bytes);
      cu.mem_alloc(&b, bytes);
      cu.mem_alloc(&c, bytes);
      const float alpha = 1.0f, beta = 0.0f;
      const int sz = static_cast<int>(size);
      // Row-major C[M,N] is column-major C^T[N,M] = Bmat^T . A^T: B stored [N,K]
      // is column-major K x N (op T, ld K); A stored [M,K] is column-major K x M.
      constexpr int kOpN = 0, kOpT = 1, kBf16 = 14, kCompute32F = 68, kAlgoDefault = -1;
      blas = time_ms(cu, stream, [&] {
        gemm(handle, kOpT, kOpN, sz, sz, sz, &alpha, reinterpret_cast<void*>(b), kBf16, sz, reinterpret_cast<void*>(a),
             kBf16, sz, &beta, reinterpret_cast<void*>(c), kBf16, sz, kCompute32F, kAlgoDefault);
      }, 3, 10);
      cu.mem_free(a);
      cu.mem_free(b);
      cu.mem_free(c);
    }
    const double tflops = gms > 0 ? 2.0 * size * size * size / (gms * 1e9) : 0;
    const double gratio = gms > 0 && blas > 0 ? blas / gms : 0;
    std::printf("bench: matmul bf16 %lld^3: %.3f ms (%.0f TFLOP/s), cublasGemmEx %.3f ms: ratio %.3f%s\n",
                static_cast<long long>(size), gms, tflops, blas, gratio,
                size == 4096 ? (gratio >= 0.5 ? " (goal >= 0.5) MET" : " (goal >= 0.5) MISSED") : "");
    if (size == 4096) misses += gratio < 0.5;
    if (!gemm) std::printf("bench: cuBLAS not loadable: no peer for matmul\n");
  }
  // 4. attention bf16, batch 1, 16 heads of 128, S = 8192 (the FlashAttention-2 reference point),
  // causal and not; the peers (PyTorch SDPA flash / cuDNN, FlexAttention on Triton) are
  // measured by attention_peers.py in the same run, which reads these lines.
  for (bool causal : {false, true}) {
    KernelSpec at;
    at.name = causal ? "bench_attn_causal_bf16" : "bench_attn_bf16";
    at.family = Family::attention;
    at.dtype = DType::bf16;
    at.accumulate = DType::f32;
    AttentionSpec as;
    as.batch = st(1), as.q_heads = st(16), as.kv_heads = st(16), as.q_len = st(8192), as.kv_len = st(8192);
    as.head_dim = st(128), as.v_head_dim = st(128);
    as.layout = AttentionLayout::bhsd;
    as.causal = causal;
    as.scale_default = true;
    as.scale = static_cast<float>(1.0 / std::sqrt(128.0));
    at.body = as;
    const double ams = kernel_ms(cu, stream, at, arch, 2, 5);
    const double flops = 4.0 * 16 * 8192.0 * 8192.0 * 128 * (causal ? 0.5 : 1.0);
    std::printf("bench: attention %s B=1 H=16 S=8192 D=128: %.3f ms (%.1f TFLOP/s)\n", causal ? "causal" : "full", ams,
                ams > 0 ? flops / (ams * 1e9) : 0.0);
  }
  cu.stream_destroy(stream);
  std::printf("bench: %d performance goal(s) missed\n", misses);
  return 0;
}

}  // namespace tsr::device_check
