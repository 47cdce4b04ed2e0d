// Issue 9 item 2: the cuda target's generated source runs in the CPU emulator
// and passes the oracle (PASS_EMULATED, never PASS), and the emulator catches
// bugs injected into emitted source (item 5). Skips when clang is absent.
#include <gtest/gtest.h>

#include <chrono>

#include "oracle/input_generator.h"
#include "driver/spec_loading.h"
#include "support/diagnostics.h"
#include "cuda/cuda_emit_kernels.h"
#include "cuda/cuda_target.h"
#include "registry/registry.h"
#include "tests/unit/emulator_test_support.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace emulator_test;

class CudaEmulator : public EmulatorFixture {};

// Small static shapes: one 128x128 block with partial tiles in M and N, two
// full K tiles and a partial one (72 = 2*32 + 8), every extent a multiple of
// 8 so cp.async runs; the odd shape takes the scalar loads.
KernelSpec small_mma(DType dtype, Layout a, Layout b, bool odd = false) {
  using namespace spec_builders;
  return odd ? matmul("mm_odd", dtype, st(33), st(17), st(13), a, b) : matmul("mm", dtype, st(48), st(40), st(72), a, b);
}

// Every operand layout of the tensor-core path, both 16-bit types, vector and
// scalar loads: fragment-exact mma/ldmatrix or these would not pass.
// The emulated module's ABI check: what LoadedModule resolves before a launch.
TEST_F(CudaEmulator, TheAbiCheckWantsAnEmulatedModule) {
  const std::unique_ptr<Target> emulated = cuda::emu::make_emulated_cuda_target();
  const KernelSpec spec = relu_1000();
  Expected<Artifact> module = emulated->compile(spec, "sm_80", *emulated->emit(spec, "sm_80"));
  ASSERT_TRUE(module.ok()) << module.error().message();
  const Status checked = emulated->check_abi(spec, *module);
  EXPECT_TRUE(checked.ok()) << checked.error().message();
  // An x86 kernel's shared object is an ELF .so, but not an emulated module.
  Expected<Artifact> x86 = find_target("x86")->compile(spec, "v2", *find_target("x86")->emit(spec, "v2"));
  ASSERT_TRUE(x86.ok()) << x86.error().message();
  Artifact foreign = *module;
  foreign.bytes = x86->bytes;
  const Status refused = emulated->check_abi(spec, foreign);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("does not export function 'tsr_emu_entry'"), std::string::npos)
      << refused.error().message();
}

TEST_F(CudaEmulator, TensorCoreMatmulAllLayoutsPass) {
  std::vector<EmulationJob> jobs;
  for (DType dtype : {DType::bf16, DType::f16})
    for (Layout a : {Layout::row, Layout::col})
      for (Layout b : {Layout::row, Layout::col})
        for (bool odd : {false, true}) {
          const KernelSpec spec = small_mma(dtype, a, b, odd);
          jobs.push_back({spec, cuda::emit_kernel(spec).source});
        }
  const std::vector<cuda::emu::EmulatedReport> reports = emulate_all(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const MatmulSpec& m = jobs[i].spec.matmul();
    SCOPED_TRACE(std::string(dtype_name(jobs[i].spec.dtype)) + (m.a == Layout::row ? " a:row" : " a:col") +
                 (m.b == Layout::row ? " b:row" : " b:col") + " " + jobs[i].spec.name);
    EXPECT_EQ(reports[i].evidence, "PASS_EMULATED") << reports[i].oracle.reason;
    EXPECT_EQ(reports[i].oracle.verdict, Verdict::pass_emulated);
    EXPECT_EQ(reports[i].oracle.reason, kEmulatedReason);
    EXPECT_EQ(reports[i].oracle.trials, kTrialCount);
  }
}

// Item 5: two fragment registers swapped in the mma mapping.
TEST_F(CudaEmulator, CatchesSwappedMmaFragmentRegisters) {
  const KernelSpec spec = small_mma(DType::bf16, Layout::row, Layout::col);
  const std::string src = inject(cuda::emit_kernel(spec).source, "bf[2 * p][0] = r[0]; bf[2 * p][1] = r[1];",
                                 "bf[2 * p][0] = r[1]; bf[2 * p][1] = r[0];");
  EXPECT_NE(fail_reason(emulate(spec, src)).find("elements outside budget"), std::string::npos);
}

// Item 5: a wrong ldmatrix row address for one layout (A row-major: the
// second 8x8 matrix must start 8 rows down, not at lane>>4).
TEST_F(CudaEmulator, CatchesWrongLdmatrixRowAddress) {
  const KernelSpec spec = small_mma(DType::f16, Layout::row, Layout::row);
  const std::string src = inject(cuda::emit_kernel(spec).source, "as + (mb + (lane & 7) + ((lane >> 3) & 1) * 8)",
                                 "as + (mb + (lane & 7) + ((lane >> 4) & 1) * 8)");
  EXPECT_NE(fail_reason(emulate(spec, src)).find("elements outside budget"), std::string::npos);
}

// Item 5: the barrier after the cp.async wait dropped: warp 0 reads tiles the
// other warps' copies have not landed yet. Racecheck names the first hazard:
// warp 0's ldmatrix read a row that a neighbouring lane's copy then wrote.
TEST_F(CudaEmulator, CatchesDroppedSyncthreads) {
  const KernelSpec spec = small_mma(DType::bf16, Layout::row, Layout::col);
  const std::string src = inject(cuda::emit_kernel(spec).source,
                                 "tsr_cp_async_wait1();   // tile kt has landed; tile kt+1 may still be in flight\n"
                                 "    tsr_syncthreads();\n",
                                 "tsr_cp_async_wait1();\n");
  const std::string reason = fail_reason(emulate(spec, src));
  EXPECT_NE(reason.find(" errors\n  racecheck: write-after-read hazard at static shared offset 80 (As + 80): cp.async write by thread "
                        "(4,0,0) of block (0,0,0) after read by thread (1,0,0) of block (0,0,0) with no "
                        "__syncthreads between\n"),
            std::string::npos)
      << reason;
}

// The multistage write-after-read race: without the barrier at the end of the
// k loop, a fast warp refills stage st with cp.async while slower warps still
// read it. A copy writes its destination over its whole flight, so the
// refill's issue conflicts with those reads whenever the copy lands. Every
// shipped 16-bit matmul, from its spec file.
TEST_F(CudaEmulator, CatchesDroppedTrailingSyncthreadsInShippedMatmuls) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs"}, diag);
  ASSERT_FALSE(diag.has_errors()) << diag.render();
  std::vector<EmulationJob> jobs;
  for (const KernelSpec& spec : specs)
    if (spec.family == Family::matmul && spec.dtype != DType::f32)
      jobs.push_back({spec, inject(cuda::emit_kernel(spec).source,
                                   "    tsr_syncthreads();   // every warp is done with stage st before it is refilled\n",
                                   "")});
  ASSERT_EQ(jobs.size(), 3u);
  const std::vector<cuda::emu::EmulatedReport> reports = emulate_all(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(jobs[i].spec.name);
    const std::string reason = fail_reason(reports[i]);
    EXPECT_NE(reason.find("racecheck: write-after-read hazard at static shared offset "), std::string::npos) << reason;
    EXPECT_NE(reason.find(": cp.async write by thread "), std::string::npos) << reason;
    EXPECT_NE(reason.find(" after read by thread "), std::string::npos) << reason;
  }
}

// Item 5: a dropped __syncthreads in a rowwise block reduction (the second
// one: lanes read red[] before every warp has written it).
TEST_F(CudaEmulator, CatchesDroppedSyncthreadsInBlockReduction) {
  using namespace spec_builders;
  const KernelSpec spec = rowwise("rms", DType::f32, RowOp::rmsnorm, st(3), st(1000), false);
  const std::string src = inject(cuda::emit_kernel(spec).source,
                                 "  if (lane == 0) red[warp] = v;\n  tsr_syncthreads();\n",
                                 "  if (lane == 0) red[warp] = v;\n");
  const std::string reason = fail_reason(emulate(spec, src));
  EXPECT_NE(reason.find(" errors\n  racecheck: write-after-read hazard at static shared offset 4 (red + 4): write by thread "
                        "(32,0,0) of block (0,0,0) after read by thread (1,0,0) of block (0,0,0) with no "
                        "__syncthreads between\n  racecheck: read-after-write hazard at static shared offset 0 (red + 0): "
                        "read by thread (32,0,0) of block (0,0,0) after write by thread (0,0,0) of block (0,0,0) "
                        "with no __syncthreads between\n"),
            std::string::npos)
      << reason;
}

// Item 5: a shared-memory index that overflows its array. The f32 tile loop
// reads As[kk + 1]: at kk = 15 that is row 16 of a [16][68] array, which on a
// GPU silently reads the neighbouring Bs. The array-bounds check stops the
// launch at the first such access, naming the index, the array type, the
// emitted line and column, and the thread.
TEST_F(CudaEmulator, CatchesSharedIndexOverflowingItsArray) {
  using namespace spec_builders;
  const KernelSpec spec = matmul("mm32", DType::f32, st(48), st(40), st(72), Layout::row, Layout::row);
  const std::string src = inject(cuda::emit_kernel(spec).source, "av[i] = As[kk][ty * 4 + i];",
                                 "av[i] = As[kk + 1][ty * 4 + i];");
  EXPECT_EQ(fail_reason(emulate(spec, src)),
            "launch failed: emulator: 1 error (launch stopped)\n  memcheck: index 16 out of bounds of "
            "'float[16][68]' at mm32.cu:" + line_col(src, "As[kk + 1]") +
                " by thread (0,0,0) of block (0,0,0)");
}

// Item 5: the cp.async wait dropped: every thread reads its own copies (and
// its neighbours') while they are still in flight.
TEST_F(CudaEmulator, CatchesDroppedCpAsyncWait) {
  const KernelSpec spec = small_mma(DType::bf16, Layout::col, Layout::row);
  const std::string src = inject(cuda::emit_kernel(spec).source,
                                 "    tsr_cp_async_wait1();   // tile kt has landed; tile kt+1 may still be in flight\n",
                                 "");
  const std::string reason = fail_reason(emulate(spec, src));
  EXPECT_NE(reason.find(" errors\n  racecheck: read-after-write hazard at static shared offset 0 (As + 0): read by "
                        "thread (0,0,0) of block (0,0,0) while the cp.async write by thread (0,0,0) of block (0,0,0) "
                        "is in flight (before its wait_group)\n"),
            std::string::npos)
      << reason;
}

// Item 5: an off-by-one tail guard reads and writes one element past the end.
TEST_F(CudaEmulator, CatchesOffByOneTailGuard) {
  using namespace spec_builders;
  const KernelSpec spec = elementwise("ew", DType::f32, {Op::add}, st(1001));
  const std::string src =
      inject(cuda::emit_kernel(spec).source, "i < n; i += stride)", "i <= n; i += stride)");
  const std::string reason = fail_reason(emulate(spec, src));
  EXPECT_NE(reason.find("launch failed: emulator: 3 errors\n"
                        "  memcheck: out-of-bounds global read of 4 bytes at offset 4004 of buffer 'in0' (4004 bytes) by thread (1,0,0) of block (0,0,0)"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("memcheck: out-of-bounds global write of 4 bytes at offset 4004 of buffer 'out' (4004 bytes)"),
            std::string::npos)
      << reason;
}

// A warp collective that only some lanes of the warp reach is an error
// naming both lanes, not a hang.
TEST_F(CudaEmulator, ReportsDivergenceAtAWarpCollective) {
  using namespace spec_builders;
  const KernelSpec spec = rowwise("rms", DType::f32, RowOp::rmsnorm, st(1), st(64), false);
  const std::string src = inject(cuda::emit_kernel(spec).source, "  v = tsr_warp_sum(v);\n",
                                 "  if (threadIdx.x != 5) v = tsr_warp_sum(v);\n");
  const std::string reason = fail_reason(emulate(spec, src));
  EXPECT_NE(reason.find("(launch stopped)\n  divergence at a warp collective: warp 0 of block (0,0,0): thread "
                        "(0,0,0) of block (0,0,0) waits at shfl.sync (mask 0xffffffff) but lane 5 waits at "
                        "__syncthreads"),
            std::string::npos)
      << reason;
}

// A thread leaving before a barrier the others wait at is an error.
TEST_F(CudaEmulator, ReportsExitWhileOthersWaitAtABarrier) {
  using namespace spec_builders;
  const KernelSpec spec = rowwise("rms", DType::f32, RowOp::rmsnorm, st(1), st(64), false);
  const std::string src = inject(cuda::emit_kernel(spec).source, "  v = tsr_warp_sum(v);\n",
                                 "  v = tsr_warp_sum(v);\n  if (threadIdx.x >= 32) return 0.0f;\n");
  const std::string reason = fail_reason(emulate(spec, src));
  EXPECT_NE(reason.find("barrier: 32 threads of block (0,0,0) wait at __syncthreads while 224 have exited (first: "
                        "thread (32,0,0) of block (0,0,0))"),
            std::string::npos)
      << reason;
}

// Item 4 (in part): every shipped spec's cuda source passes the oracle in the
// emulator at the oracle's own trial sizes. The cuda emitter writes the same
// source for every sm_*, so sm_80 is emulated and sm_90 proven byte-identical.
// The specs are emulated on every core (emulate_all).
TEST_F(CudaEmulator, EveryShippedSpecPassesEmulated) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs"}, diag);
  ASSERT_FALSE(diag.has_errors()) << diag.render();
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const auto start = std::chrono::steady_clock::now();
  std::vector<EmulationJob> jobs;
  for (const KernelSpec& spec : specs) {
    if (!cuda->unsupported_reason(spec, "sm_80").empty()) continue;
    Expected<std::string> sm80 = cuda->emit(spec, "sm_80"), sm90 = cuda->emit(spec, "sm_90");
    ASSERT_TRUE(sm80.ok() && sm90.ok()) << spec.name;
    EXPECT_EQ(*sm80, *sm90) << spec.name;
    jobs.push_back({spec, *sm80});
  }
  EXPECT_EQ(jobs.size(), 27u);
  const std::vector<cuda::emu::EmulatedReport> reports = emulate_all(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(reports[i].evidence, "PASS_EMULATED") << jobs[i].spec.name << ": " << reports[i].oracle.reason;
    EXPECT_EQ(reports[i].oracle.trials, kTrialCount) << jobs[i].spec.name;
  }
  std::fprintf(stderr, "[emulator] %zu shipped specs (sm_80 = sm_90 source) emulated in %.1f s\n", jobs.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace
}  // namespace tsr
