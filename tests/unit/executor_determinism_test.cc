// The determinism requirement of issues 8 and 11 (docs/runtime.md, "Kernel
// ABI v2"): every shipped spec, built for every x86 tier this CPU runs and
// launched through the stub, gives bit-identical outputs on executors of 1,
// 2, 3 and 8 workers that run tasks in scrambled orders, and on the default
// pool. The split into tasks is the shape's: every executor sees the same
// task count. Tiers the CPU lacks are listed in the skip message.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "launch/stub_launcher.h"
#include "spec/abi.h"
#include "driver/spec_loading.h"
#include "spec/half.h"
#include "test_executor.h"
#include "x86_fixture.h"

namespace tsr {
namespace {

std::vector<std::string> shipped_spec_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(TSR_SOURCE_DIR "/specs"))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runtime extents large enough for several tasks per launch: elementwise
// chunks of 32,768 elements, rowwise blocks of rows, matmul row blocks of
// up to 128 rows and several KC = 256 blocks of K.
std::map<std::string, int64_t> runtime_dims(const KernelSpec& spec) {
  std::map<std::string, int64_t> dims;
  auto set = [&](const Dim& d, int64_t v) {
    if (!d.is_static()) dims.emplace(d.name, v);
  };
  switch (spec.family) {
    case Family::elementwise: set(spec.elementwise().n, 3 * 32768 + 17); break;
    case Family::rowwise: set(spec.rowwise().rows, 77), set(spec.rowwise().cols, 1100); break;
    case Family::matmul: set(spec.matmul().m, 300), set(spec.matmul().n, 203), set(spec.matmul().k, 600); break;
    // Several query blocks of 32 rows and key tiles of 48, a partial one last;
    // a decode spec (q_len static 1) splits its 1100 keys into two chunks.
    case Family::attention:
      set(spec.attention().batch, 2), set(spec.attention().q_len, 70), set(spec.attention().kv_len, 1100);
      break;
  }
  return dims;
}

LaunchArgs random_args(const KernelSpec& spec, const std::map<std::string, int64_t>& dims) {
  const KernelAbi abi = kernel_abi(spec);
  LaunchArgs args;
  for (const std::string& name : abi.scalar_names()) args.scalars.push_back(dims.at(name));
  std::mt19937 rng(2026);
  // Positive inputs keep sqrt, rsqrt and div defined.
  const bool positive = spec.family == Family::elementwise;
  std::uniform_real_distribution<double> dist(positive ? 0.5 : -1.0, positive ? 2.0 : 1.0);
  for (const Binding* b : abi.buffers()) {
    const int64_t count = *abi.element_count(*b, dims);
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(b->dtype), 0xcd);
    if (b->role == Role::input)
      for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), b->dtype, i, dist(rng));
    args.buffers.push_back(std::move(bytes));
  }
  return args;
}

class ShippedSpec : public testing::X86Fixture, public ::testing::WithParamInterface<std::string> {
 protected:
  // Builds `spec` for `arch` and checks its outputs agree across executors.
  void check_tier(const KernelSpec& spec, const std::string& arch);
};

void ShippedSpec::check_tier(const KernelSpec& spec, const std::string& arch) {
  Expected<std::string> source = target_->emit(spec, arch);
  ASSERT_TRUE(source.ok()) << source.error().message();
  Expected<Artifact> art = target_->compile(spec, arch, *source);
  ASSERT_TRUE(art.ok()) << art.error().message();
  Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
  ASSERT_TRUE(stub.ok()) << stub.error().message();

  const std::map<std::string, int64_t> dims = runtime_dims(spec);
  const LaunchArgs inputs = random_args(spec, dims);
  std::vector<std::vector<uint8_t>> first;   // every buffer: each output (attention: o and lse)
  uint64_t first_tasks = 0;
  for (uint32_t workers : {1u, 2u, 3u, 8u, 0u}) {   // 0: the default pool
    const std::string what = spec.name + " x86:" + arch + (workers ? " on " + std::to_string(workers) + " workers" : " on the default pool");
    LaunchArgs args = inputs;
    testing::ScrambledExecutor scrambled(workers ? workers : 1, workers);
    {
      std::unique_ptr<testing::ExecutorScope> scope;
      if (workers) scope = std::make_unique<testing::ExecutorScope>(scrambled.executor());
      const Status s = (*stub)->launch(spec, *art, args);
      ASSERT_TRUE(s.ok()) << what << ": " << s.error().message();
    }
    EXPECT_EQ(scrambled.violations(), 0u) << what;
    if (workers == 1) {
      first = args.buffers;
      first_tasks = scrambled.tasks();
      // Where the test chose runtime extents, they make several tasks.
      if (!dims.empty()) EXPECT_GT(scrambled.tasks(), 1u) << what;
      continue;
    }
    if (workers) EXPECT_EQ(scrambled.tasks(), first_tasks) << what << ": the split must not depend on workers";
    EXPECT_TRUE(args.buffers == first) << what << ": output differs from 1 worker";
  }
}

TEST_P(ShippedSpec, BitIdenticalOn1_2_3_8WorkersAndTheDefaultPoolAtEveryTier) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs/" + GetParam() + ".yaml"}, diag);
  ASSERT_EQ(specs.size(), 1u) << diag.render();
  const KernelSpec& spec = specs[0];
  std::vector<std::string> absent;
  int checked = 0;
  for (const std::string& arch : target_->archs()) {
    if (!target_->unsupported_reason(spec, arch).empty()) continue;
    const DeviceInfo device = target_->device(arch);
    if (!device.present) {
      absent.push_back("x86:" + arch + " (" + device.description + ")");
      continue;
    }
    SCOPED_TRACE("x86:" + arch);
    check_tier(spec, arch);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no x86 tier of " << spec.name << " runs here";
  for (const std::string& a : absent) std::cout << "[ NOT RUN  ] " << a << "\n";
}

INSTANTIATE_TEST_SUITE_P(ExecutorDeterminism, ShippedSpec, ::testing::ValuesIn(shipped_spec_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace tsr
