// The x86 kernel ABI v2 through the stub (tesserart_kernel.h; docs/runtime.md):
// what a kernel finds in its context (the installed executor, workspace of
// the size it asked for), the workspace pool's reuse (no allocation in the
// steady state, one block per concurrent launch, growth only when too
// small, OUT_OF_MEMORY when none can be had), and the refusal at load of an
// artifact missing one of the two exports.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "test_executor.h"
#include "tesserart.h"

extern "C" {
#include "../../runtime-stub/src/tsr_internal.h"
}

namespace tsr {
namespace {

// ctxk: in0 f32[8] -> out f32[8], scalar n; asks for n bytes of workspace and
// reports its context in out: [0] ABI version, [1] worker count, [2] 1 if no
// workspace, [3] 1 if workspace_bytes >= n, [4] 1 if 64-byte aligned, [5] 1
// if another launch held the block at the same time, [6] tasks its one
// parallel_for of 3 tasks ran, [7] in0[7] (it ran).
const char* kCtxBody = R"(  const float* x = (const float*)b[0];
  float* o = (float*)b[1];
  o[0] = (float)ctx->abi_version;
  o[1] = (float)ctx->worker_count;
  o[2] = ctx->workspace == 0;
  o[3] = ctx->workspace_bytes >= (uint64_t)s[0];
  o[4] = (uintptr_t)ctx->workspace % 64 == 0;
  o[5] = 0;
  if (ctx->workspace && s[0] >= 4) {
    int* owner = (int*)ctx->workspace;
    if (__atomic_exchange_n(owner, 1, __ATOMIC_ACQ_REL)) o[5] = 1;
    unsigned char* rest = (unsigned char*)ctx->workspace + 4;
    for (int64_t i = 4; i < s[0]; ++i) rest[i - 4] = (unsigned char)i;   /* touch every byte */
    for (volatile int spin = 0; spin < 1000; ++spin) {}
    __atomic_store_n(owner, 0, __ATOMIC_RELEASE);
  }
  int tasks = 0;
  ctx->parallel_for(ctx->executor_state, 3, count_task, &tasks);
  o[6] = (float)tasks;
  o[7] = x[7];
)";

std::vector<uint8_t> ctx_object(bool with_workspace_fn = true) {
  const std::string helper =
      "static void count_task(void* arg, int64_t t, uint32_t w) { (void)t; (void)w; "
      "__atomic_fetch_add((int*)arg, 1, __ATOMIC_RELAXED); }\n";
  return testing::compile_shared_object(
      testing::x86_kernel_source("ctxk_tsr_entry", kCtxBody, with_workspace_fn ? "return (uint64_t)s[0];" : "", helper),
      "ctxk");
}

// An artifact of the first ABI: `void E(void* const*, const int64_t*)`, no E_workspace.
std::vector<uint8_t> v1_object() {
  return testing::compile_shared_object(
      "#include <stdint.h>\n"
      "void ctxk_tsr_entry(void* const* b, const int64_t* s) { (void)s; ((float*)b[1])[0] = 1.0f; }\n",
      "ctxk_v1");
}

ArchiveContents ctx_contents(std::vector<uint8_t> object) {
  ArchiveContents c;
  c.metadata = {{"tesserac.version", "0.1.0"}};
  ArchiveKernel k;
  k.name = "ctxk";
  k.identity = std::string(64, 'c');
  k.family = "elementwise";
  k.dtype = DType::f32;
  k.abi.bindings = {testing::buffer("in0", Role::input, DType::f32, {Dim{8, ""}}),
                    testing::buffer("out", Role::output, DType::f32, {Dim{8, ""}}),
                    Binding{"n", Role::scalar, DType::f32, {}}};
  k.variants = {testing::x86_artifact("ctxk", "v1", std::move(object))};
  c.kernels.push_back(k);
  return c;
}

class X86Abi : public ::testing::Test {
 protected:
  // Opens the archive of `object`; load() then loads ctxk from it.
  void open(std::vector<uint8_t> object) {
    ASSERT_FALSE(object.empty()) << "cc failed";
    Expected<std::vector<uint8_t>> bytes = serialize_archive(ctx_contents(std::move(object)));
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    bytes_ = std::move(*bytes);
    ASSERT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
  }
  void load() {
    ASSERT_EQ(tsr_kernel_load(archive_, "ctxk", nullptr, &kernel_), TSR_OK) << tsr_archive_last_message(archive_);
  }
  void TearDown() override {
    tsr_kernel_unload(kernel_);
    tsr_archive_close(archive_);
  }
  // One launch asking for n bytes of workspace; the context report.
  std::vector<float> launch(int64_t n, tsr_status expect = TSR_OK) {
    std::vector<float> in(8, 42.f), out(8, -1.f);
    tsr_buffer_arg args[2] = {{in.data(), 32, TSR_DTYPE_F32, TSR_ROLE_IN}, {out.data(), 32, TSR_DTYPE_F32, TSR_ROLE_OUT}};
    EXPECT_EQ(tsr_kernel_launch(kernel_, args, 2, &n, 1, nullptr), expect) << tsr_kernel_last_message(kernel_);
    return out;
  }
  uint64_t allocations() const {
    return tsr_workspace_allocations(&static_cast<const tsr_x86_loaded*>(kernel_->backend_state)->workspace);
  }
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  tsr_kernel* kernel_ = nullptr;
};

// A user executor sees every parallel_for of a launch, and the context its
// worker count; the default pool comes back after tsr_set_executor(NULL).
TEST_F(X86Abi, ContextCarriesTheInstalledExecutor) {
  open(ctx_object());
  load();
  testing::ScrambledExecutor counting(5);
  {
    testing::ExecutorScope scope(counting.executor());
    ASSERT_EQ(scope.status(), TSR_OK);
    for (int i = 0; i < 4; ++i) {
      const std::vector<float> out = launch(64);
      EXPECT_EQ(out[0], 2.f);   // TSR_KERNEL_ABI_VERSION
      EXPECT_EQ(out[1], 5.f);
      EXPECT_EQ(out[6], 3.f);
      EXPECT_EQ(out[7], 42.f);
    }
    EXPECT_EQ(counting.calls(), 4u);
    EXPECT_EQ(counting.tasks(), 12u);
    EXPECT_EQ(counting.violations(), 0u);
  }
  const std::vector<float> out = launch(64);
  EXPECT_EQ(out[1], float(tsr_executor_worker_count()));
  EXPECT_EQ(out[6], 3.f);
  EXPECT_EQ(counting.calls(), 4u);   // no longer installed
}

TEST_F(X86Abi, ZeroWorkspaceIsNullAndAllocatesNothing) {
  open(ctx_object());
  load();
  for (int i = 0; i < 3; ++i) {
    const std::vector<float> out = launch(0);
    EXPECT_EQ(out[2], 1.f);   // workspace == NULL
    EXPECT_EQ(out[7], 42.f);
  }
  EXPECT_EQ(allocations(), 0u);
}

TEST_F(X86Abi, SecondAndLaterLaunchesAllocateNothing) {
  open(ctx_object());
  load();
  std::vector<float> out = launch(10000);
  EXPECT_EQ(out[2], 0.f);
  EXPECT_EQ(out[3], 1.f);   // at least what E_workspace asked for
  EXPECT_EQ(out[4], 1.f);   // 64-byte aligned
  EXPECT_EQ(allocations(), 1u);
  for (int64_t n : {10000, 10000, 5, 9999, 12000, 64})   // 12,000 still fits the 4 KiB-rounded block
    EXPECT_EQ(launch(n)[3], 1.f) << n;
  EXPECT_EQ(allocations(), 1u);
  // Only a launch needing more than the block holds replaces it.
  EXPECT_EQ(launch(100000)[3], 1.f);
  EXPECT_EQ(allocations(), 2u);
  for (int64_t n : {100000, 10000, 7}) launch(n);
  EXPECT_EQ(allocations(), 2u);
}

// Concurrent launches of one kernel hold distinct blocks; the pool never
// holds more blocks than launches ran at once.
TEST_F(X86Abi, ConcurrentLaunchesEachGetTheirOwnBlock) {
  open(ctx_object());
  load();
  constexpr int kThreads = 4;
  std::atomic<int> shared{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        std::vector<float> in(8, 1.f), out(8, -1.f);
        int64_t n = 20000;
        tsr_buffer_arg args[2] = {{in.data(), 32, TSR_DTYPE_F32, TSR_ROLE_IN},
                                  {out.data(), 32, TSR_DTYPE_F32, TSR_ROLE_OUT}};
        if (tsr_kernel_launch(kernel_, args, 2, &n, 1, nullptr) != TSR_OK || out[3] != 1.f || out[4] != 1.f) ++failed;
        if (out[5] != 0.f) ++shared;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(shared, 0);
  EXPECT_GE(allocations(), 1u);
  EXPECT_LE(allocations(), uint64_t{kThreads});
}

// Workspace that cannot be allocated fails the launch before the kernel runs.
TEST_F(X86Abi, UnallocatableWorkspaceIsOutOfMemory) {
  open(ctx_object());
  load();
  const std::vector<float> out = launch(int64_t{1} << 62, TSR_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(out[7], -1.f);   // never ran
  EXPECT_STREQ(tsr_kernel_last_message(kernel_), "no memory for 4611686018427387904 bytes of workspace");
  EXPECT_EQ(launch(64)[7], 42.f);   // the kernel still works
}

TEST_F(X86Abi, MissingWorkspaceFunctionIsLoadFailed) {
  open(ctx_object(false));
  EXPECT_EQ(tsr_kernel_load(archive_, "ctxk", nullptr, &kernel_), TSR_ERROR_LOAD_FAILED);
  EXPECT_EQ(kernel_, nullptr);
  EXPECT_STREQ(tsr_archive_last_message(archive_), "x86 artifact does not export 'ctxk_tsr_entry_workspace'");
}

// An artifact of the first ABI is refused at load, never called with a context.
TEST_F(X86Abi, FirstAbiArtifactIsRefusedAtLoad) {
  open(v1_object());
  EXPECT_EQ(tsr_kernel_load(archive_, "ctxk", nullptr, &kernel_), TSR_ERROR_LOAD_FAILED);
  EXPECT_STREQ(tsr_archive_last_message(archive_), "x86 artifact does not export 'ctxk_tsr_entry_workspace'");
}

}  // namespace
}  // namespace tsr
