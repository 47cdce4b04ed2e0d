// Issue 9 item 2: the emulator's racecheck, the memcheck of plain accesses,
// dynamic shared memory and the watchdog, on hand-written kernels (the ABI of
// a one-input elementwise spec) and on emitted source with injected bugs.
// Skips when clang is absent.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cuda/cuda_emit_kernels.h"
#include "cuda/cuda_primitives.h"
#include "cuda/cuda_target.h"
#include "emulator/shared_symbols.h"
#include "tests/unit/emulator_test_support.h"

namespace tsr {
namespace {

using namespace emulator_test;

class CudaEmulatorChecks : public EmulatorFixture {};

// out = relu(in), exchanged through shared memory: thread t stores element t
// of its block's slice into buf[t], and after the barrier stores the element
// of thread t ^ 32 (the same lane of the neighbouring warp). `buffer`
// declares buf; the other arguments replace the store, the barrier and the
// load, so each test changes exactly one of them.
struct Exchange {
  std::string buffer = "  __shared__ float buf[1024];\n";
  std::string store = "    buf[t] = i < 1000 ? tsr_ldg(p_in0, i) : 0.0f;\n";
  std::string barrier = "    tsr_syncthreads();\n";
  std::string load = "    const float v = buf[u];\n";
};

std::string exchange_kernel(const Exchange& e) {
  cuda::PrimitiveSet set;
  set.dynamic_shared = true;
  return cuda::primitives_source(set, DType::f32) +
         "typedef float tsr_t;\n"
         "extern \"C\" __global__ void ew(const tsr_t* __restrict__ p_in0, tsr_t* __restrict__ p_out) {\n" +
         e.buffer +
         "  const int t = threadIdx.x, u = t ^ 32;\n"
         "  for (long long base = (long long)blockIdx.x * blockDim.x; base < 1000;\n"
         "       base += (long long)gridDim.x * blockDim.x) {\n"
         "    const long long i = base + t;\n" +
         e.store + e.barrier + e.load +
         "    if (base + u < 1000) tsr_stg(p_out, base + u, v > 0.0f ? v : 0.0f);\n"
         "    tsr_syncthreads();\n"
         "  }\n"
         "}\n";
}

TEST_F(CudaEmulatorChecks, ExchangeThroughSharedMemoryPasses) {
  const KernelSpec spec = relu_1000();
  const cuda::emu::EmulatedReport r = emulate(spec, exchange_kernel({}));
  EXPECT_EQ(r.evidence, "PASS_EMULATED") << r.oracle.reason;
}

// Racecheck: without the barrier, warp 0 reads buf[32..63] before warp 1 has
// written them (on a GPU: any order). The report names both threads, the
// kind of hazard and the shared offset (buf[32] = byte 128).
TEST_F(CudaEmulatorChecks, RacecheckReportsWriteAndReadByDifferentWarpsWithoutBarrier) {
  Exchange e;
  e.barrier = "";
  const std::string reason = fail_reason(emulate(relu_1000(), exchange_kernel(e)));
  EXPECT_NE(reason.find(" errors\n  racecheck: write-after-read hazard at static shared offset 128 (buf + 128): write by thread "
                        "(32,0,0) of block (0,0,0) after read by thread (0,0,0) of block (0,0,0) with no "
                        "__syncthreads between\n  racecheck: read-after-write hazard at static shared offset 0 (buf + 0): "
                        "read by thread (32,0,0) of block (0,0,0) after write by thread (0,0,0) of block (0,0,0) "
                        "with no __syncthreads between\n"),
            std::string::npos)
      << reason;
}

// Report names come from the module's ELF symbol table; bytes that are not a
// complete ELF64 module give no names (and no crash), only offsets.
TEST_F(CudaEmulatorChecks, SharedVariableNamesComeFromTheModuleSymbolTable) {
  Expected<Artifact> art = cuda::emu::build_emulated(relu_1000(), "sm_80", exchange_kernel({}));
  ASSERT_TRUE(art.ok()) << art.error().message();
  const std::vector<cuda::emu::SharedSymbol> symbols = cuda::emu::shared_symbols(art->bytes);
  ASSERT_EQ(symbols.size(), 1u);
  EXPECT_EQ(symbols[0].name, "buf");
  EXPECT_EQ(symbols[0].offset, 0u);
  EXPECT_EQ(symbols[0].size, 4096u);
  EXPECT_EQ(cuda::emu::shared_symbol_at(symbols, 132), "buf + 132");
  EXPECT_EQ(cuda::emu::shared_symbol_at(symbols, 4096), "");
  for (size_t cut : {size_t{0}, size_t{16}, size_t{64}, art->bytes.size() / 2, art->bytes.size() - 1}) {
    const std::vector<uint8_t> truncated(art->bytes.begin(), art->bytes.begin() + static_cast<long>(cut));
    EXPECT_TRUE(cuda::emu::shared_symbols(truncated).empty()) << cut;
  }
  std::vector<uint8_t> corrupt = art->bytes;
  for (size_t i = 0x28; i < 0x40; ++i) corrupt[i] = 0xff;   // e_shoff, e_shnum, e_shstrndx of the ELF header
  EXPECT_TRUE(cuda::emu::shared_symbols(corrupt).empty());
}

// Every thread also reads buf[0] after the barrier: many readers, no writer
// in that interval, no hazard.
TEST_F(CudaEmulatorChecks, RacecheckAllowsReadsByManyThreads) {
  Exchange e;
  e.load = "    const float v = buf[u] + 0.0f * buf[0];\n";
  const cuda::emu::EmulatedReport r = emulate(relu_1000(), exchange_kernel(e));
  EXPECT_EQ(r.evidence, "PASS_EMULATED") << r.oracle.reason;
}

// A thread that rewrites its own element before the barrier (volatile, so the
// compiler keeps both stores and the read between them) is no hazard.
TEST_F(CudaEmulatorChecks, RacecheckAllowsOneThreadRewritingItsOwnData) {
  Exchange e;
  e.store = "    volatile float* vb = buf;\n"
            "    vb[t] = i < 1000 ? tsr_ldg(p_in0, i) : 0.0f;\n"
            "    vb[t] = -vb[t];\n";
  e.load = "    const float v = -buf[u];\n";
  const cuda::emu::EmulatedReport r = emulate(relu_1000(), exchange_kernel(e));
  EXPECT_EQ(r.evidence, "PASS_EMULATED") << r.oracle.reason;
}

// Memcheck of plain accesses: a kernel that writes an input buffer without
// the primitives (so tsr_stg's check never sees it) is reported by the
// instrumentation's hook.
TEST_F(CudaEmulatorChecks, MemcheckReportsAPlainWriteToAnInputBuffer) {
  Exchange e;
  e.store += "    if (i == 999) ((tsr_t*)p_in0)[i] = 0.0f;\n";
  const std::string reason = fail_reason(emulate(relu_1000(), exchange_kernel(e)));
  EXPECT_EQ(reason, "launch failed: emulator: 1 error\n  memcheck: global write of 4 bytes to input buffer 'in0' at "
                    "offset 3996 by thread (231,0,0) of block (0,0,0)");
}

// ---- dynamic shared memory: the same exchange through tsr_dynamic_shared().

// Builds `source` and launches it with `shared_bytes` of dynamic shared memory.
cuda::emu::EmulatedReport emulate_with_dynamic_shared(const std::string& source, const std::string& shared_bytes) {
  const KernelSpec spec = relu_1000();
  const std::unique_ptr<Target> target = cuda::emu::make_emulated_cuda_target();
  Expected<Artifact> art = target->compile(spec, "sm_80", source);
  cuda::emu::EmulatedReport r;
  if (!art) {
    r.evidence = "NOT_RUN";
    r.oracle.reason = art.error().message();
    return r;
  }
  art->metadata["cuda.shared_bytes"] = shared_bytes;
  r.oracle = run_oracle(spec, cuda::emu::EmulatorLauncher(*target), *art, {});
  r.evidence = verdict_name(r.oracle.verdict);
  return r;
}

Exchange dynamic_exchange() {
  Exchange e;
  e.buffer = "  float* buf = (float*)tsr_dynamic_shared();\n";
  return e;
}

TEST_F(CudaEmulatorChecks, DynamicSharedMemoryExchangePasses) {
  const cuda::emu::EmulatedReport r = emulate_with_dynamic_shared(exchange_kernel(dynamic_exchange()), "4096");
  EXPECT_EQ(r.evidence, "PASS_EMULATED") << r.oracle.reason;
}

TEST_F(CudaEmulatorChecks, DynamicSharedMemoryIsPoisonedAndRacechecked) {
  Exchange e = dynamic_exchange();
  e.barrier = "";
  const std::string reason = fail_reason(emulate_with_dynamic_shared(exchange_kernel(e), "4096"));
  EXPECT_NE(reason.find(" errors\n  racecheck: write-after-read hazard at dynamic shared offset 128: write by thread "
                        "(32,0,0) of block (0,0,0) after read by thread (0,0,0) of block (0,0,0)"),
            std::string::npos)
      << reason;
}

// 256 threads store floats into 512 bytes: thread 128 is the first outside,
// and the launch stops before its store lands.
TEST_F(CudaEmulatorChecks, DynamicSharedMemoryOverflowIsReported) {
  const std::string reason = fail_reason(emulate_with_dynamic_shared(exchange_kernel(dynamic_exchange()), "512"));
  EXPECT_EQ(reason, "launch failed: emulator: 1 error (launch stopped)\n  memcheck: out-of-bounds dynamic shared write "
                    "of 4 bytes at offset 512 (512 bytes) by thread (128,0,0) of block (0,0,0)");
}

TEST_F(CudaEmulatorChecks, DynamicSharedBytesMustBeAByteCount) {
  const std::string reason = fail_reason(emulate_with_dynamic_shared(exchange_kernel(dynamic_exchange()), "lots"));
  EXPECT_EQ(reason, "launch failed: emulator: cuda.shared_bytes of 'ew' is 'lots' (expected 0..233472 bytes)");
}

// NVRTC compiles the dynamic shared primitive to an extern .shared array.
TEST(CudaEmulatorNvrtc, DynamicSharedPrimitiveCompilesWithNvrtc) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const ToolchainInfo info = cuda->toolchain();
  if (!info.found) GTEST_SKIP() << "cuda toolchain unavailable: " << info.why_unavailable;
  Expected<Artifact> art = cuda->compile(relu_1000(), "ptx", exchange_kernel(dynamic_exchange()));
  ASSERT_TRUE(art.ok()) << art.error().message();
  const std::string ptx(art->bytes.begin(), art->bytes.end());
  EXPECT_NE(ptx.find(".extern .shared .align 16 .b8 tsr_dynamic_smem[];"), std::string::npos) << ptx;
}

// ---- the watchdog

// The tail loop never advances: thread (0,0,0) of block (0,0,0), the first to
// run, loads and stores element 1000 forever.
TEST_F(CudaEmulatorChecks, WatchdogStopsALaunchThatNeverFinishes) {
  using namespace spec_builders;
  const KernelSpec spec = elementwise("ew", DType::f32, {Op::add}, st(1001));
  const std::string src = inject(cuda::emit_kernel(spec).source, "i < n; i += stride)", "i < n; i += 0)");
  cuda::emu::EmulatorOptions options;
  options.launch_timeout_s = 1;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(fail_reason(emulate(spec, src, options)),
            "launch failed: emulator: 1 error (launch stopped)\n  watchdog: launch did not finish within 1 s (thread "
            "(0,0,0) of block (0,0,0) was running)");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST(CudaEmulatorOptions, LaunchTimeoutComesFromTheOptionThenTheEnvironmentThenTheDefault) {
  const char* saved = std::getenv("TSR_EMU_TIMEOUT_S");
  const std::string restore = saved ? saved : "";
  unsetenv("TSR_EMU_TIMEOUT_S");
  EXPECT_EQ(*cuda::emu::launch_timeout_s({}), cuda::emu::kDefaultLaunchTimeoutS);
  EXPECT_EQ(cuda::emu::kDefaultLaunchTimeoutS, 300.0);
  setenv("TSR_EMU_TIMEOUT_S", "7", 1);
  EXPECT_EQ(*cuda::emu::launch_timeout_s({}), 7.0);
  cuda::emu::EmulatorOptions options;
  options.launch_timeout_s = 2;
  EXPECT_EQ(*cuda::emu::launch_timeout_s(options), 2.0);
  for (const char* bad : {"", "0", "-1", "1.5", "10s", "1000001"}) {
    setenv("TSR_EMU_TIMEOUT_S", bad, 1);
    const Expected<double> t = cuda::emu::launch_timeout_s({});
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.error().message(), std::string("TSR_EMU_TIMEOUT_S: expected a whole number of seconds in "
                                               "[1, 1000000], got '") + bad + "'");
  }
  if (saved) setenv("TSR_EMU_TIMEOUT_S", restore.c_str(), 1); else unsetenv("TSR_EMU_TIMEOUT_S");
}

}  // namespace
}  // namespace tsr
