// The skinny matmul path (src/backends/x86/x86_emit_matmul.cc; docs/targets-x86.md,
// "Tasks"): a C of one MC row block (M = 1, 8, 64: decode) skips the shared
// B packing phase and splits into column tiles that pack their own B per KC
// block. It must match the reference with tails in N and K, for every layout
// and a 16-bit dtype, and stay bit-identical for any worker count.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "launch/stub_launcher.h"
#include "oracle/reference.h"
#include "spec/abi.h"
#include "spec/half.h"
#include "test_executor.h"
#include "x86_fixture.h"

namespace tsr {
namespace {

KernelSpec skinny_spec(const std::string& name, DType dtype, Layout a, Layout b, std::vector<EpilogueOp> epilogue) {
  KernelSpec s;
  s.name = name;
  s.family = Family::matmul;
  s.dtype = dtype;
  s.accumulate = DType::f32;
  MatmulSpec mm;
  mm.m = Dim{0, "M"}, mm.n = Dim{0, "N"}, mm.k = Dim{0, "K"};
  mm.a = a, mm.b = b;
  mm.epilogue = std::move(epilogue);
  s.body = mm;
  return s;
}

// Random inputs in storage, their storage-rounded values for the reference,
// and an output buffer.
struct Inputs {
  LaunchArgs args;
  std::vector<std::vector<double>> values;
};

Inputs random_inputs(const KernelSpec& spec, const std::map<std::string, int64_t>& dims, uint32_t seed) {
  const KernelAbi abi = kernel_abi(spec);
  Inputs in;
  for (const std::string& name : abi.scalar_names()) in.args.scalars.push_back(dims.at(name));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (const Binding* b : abi.buffers()) {
    const int64_t count = *abi.element_count(*b, dims);
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(spec.dtype), 0xcd);
    if (b->role == Role::input) {
      std::vector<double> v(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        store_element(bytes.data(), spec.dtype, i, dist(rng));
        v[i] = load_element(bytes.data(), spec.dtype, i);
      }
      in.values.push_back(std::move(v));
    }
    in.args.buffers.push_back(std::move(bytes));
  }
  return in;
}

class SkinnyMatmul : public testing::X86Fixture {
 protected:
  std::string best_arch() const {
    for (const char* arch : {"v4", "v3"})
      if (target_->device(arch).present) return arch;
    return "v2";
  }
  std::unique_ptr<StubLauncher> load(const KernelSpec& spec, const std::string& arch, Artifact& art) {
    Expected<std::string> src = target_->emit(spec, arch);
    EXPECT_TRUE(src.ok()) << (src.ok() ? "" : src.error().message());
    if (!src) return nullptr;
    Expected<Artifact> compiled = target_->compile(spec, arch, *src);
    EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.error().message());
    if (!compiled) return nullptr;
    art = *compiled;
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, art);
    EXPECT_TRUE(stub.ok()) << (stub.ok() ? "" : stub.error().message());
    return stub ? std::move(*stub) : nullptr;
  }
};

// M = 1, 8, 64 with N and K off every tile and block size (NR, KC = 256),
// on the best tier here and on v2 (other MR, NR), f32 row x row (the decode
// layout) and bf16 col x col with an epilogue.
TEST_F(SkinnyMatmul, MatchesTheReferenceWithTails) {
  struct Kind {
    DType dtype;
    Layout a, b;
    std::vector<EpilogueOp> epilogue;
    double tol;
  };
  EpilogueOp bias;
  bias.kind = EpilogueOp::Kind::bias;
  EpilogueOp silu;
  silu.kind = EpilogueOp::Kind::activation, silu.activation = Op::silu;
  const std::vector<Kind> kinds = {{DType::f32, Layout::row, Layout::row, {}, 1e-4},
                                   {DType::bf16, Layout::col, Layout::col, {bias, silu}, 1.6e-2}};
  const std::vector<std::map<std::string, int64_t>> shapes = {
      {{"M", 1}, {"N", 1000}, {"K", 777}}, {{"M", 8}, {"N", 517}, {"K", 1030}}, {{"M", 64}, {"N", 203}, {"K", 600}},
      {{"M", 1}, {"N", 5}, {"K", 3}}};
  for (const std::string arch : {best_arch(), std::string("v2")})
    for (const Kind& kind : kinds) {
      const KernelSpec spec = skinny_spec("mm_skinny", kind.dtype, kind.a, kind.b, kind.epilogue);
      Artifact art;
      const std::unique_ptr<StubLauncher> stub = load(spec, arch, art);
      ASSERT_NE(stub, nullptr);
      for (const auto& dims : shapes) {
        const std::string what = std::string(dtype_name(kind.dtype)) + " x86:" + arch + " M=" +
                                 std::to_string(dims.at("M")) + " N=" + std::to_string(dims.at("N")) +
                                 " K=" + std::to_string(dims.at("K"));
        Inputs in = random_inputs(spec, dims, 42);
        const Status s = stub->launch(spec, art, in.args);
        ASSERT_TRUE(s.ok()) << what << ": " << s.error().message();
        const std::vector<uint8_t>& out = in.args.buffers.back();
        const std::vector<ReferenceValue> ref = reference_output(spec, in.values, dims, 1);
        ASSERT_EQ(static_cast<int64_t>(ref.size()), dims.at("M") * dims.at("N")) << what << ": every row checked";
        for (const ReferenceValue& r : ref) {
          const double got = load_element(out.data(), kind.dtype, r.index);
          ASSERT_LE(std::fabs(got - r.value), kind.tol + kind.tol * std::fabs(r.value))
              << what << ": element " << r.index << " got " << got << " want " << r.value;
        }
      }
    }
}

// The split is the shape's (one parallel_for of column tiles, no B packing
// phase) and every output bit is the same on 1, 2, 3 and 8 workers.
TEST_F(SkinnyMatmul, BitIdenticalOnAnyWorkerCount) {
  const std::string arch = best_arch();
  const KernelSpec spec = skinny_spec("mm_skinny_det", DType::f32, Layout::row, Layout::row, {});
  Artifact art;
  const std::unique_ptr<StubLauncher> stub = load(spec, arch, art);
  ASSERT_NE(stub, nullptr);
  for (int64_t m : {1, 8, 64}) {
    const std::map<std::string, int64_t> dims = {{"M", m}, {"N", 4096 + 40}, {"K", 1030}};
    const Inputs inputs = random_inputs(spec, dims, 7);
    std::vector<uint8_t> first;
    uint64_t first_tasks = 0;
    for (uint32_t workers : {1u, 2u, 3u, 8u}) {
      const std::string what = "M=" + std::to_string(m) + " x86:" + arch + " on " + std::to_string(workers) + " workers";
      LaunchArgs args = inputs.args;
      testing::ScrambledExecutor scrambled(workers, workers);
      {
        testing::ExecutorScope scope(scrambled.executor());
        ASSERT_EQ(scope.status(), TSR_OK);
        const Status s = stub->launch(spec, art, args);
        ASSERT_TRUE(s.ok()) << what << ": " << s.error().message();
      }
      EXPECT_EQ(scrambled.violations(), 0u) << what;
      EXPECT_EQ(scrambled.calls(), 1u) << what << ": column tiles only, no shared B phase";
      if (workers == 1) {
        first = args.buffers.back();
        first_tasks = scrambled.tasks();
        EXPECT_GE(first_tasks, 16u) << what << ": work for many cores";
        continue;
      }
      EXPECT_EQ(scrambled.tasks(), first_tasks) << what << ": the split must not depend on workers";
      EXPECT_TRUE(args.buffers.back() == first) << what << ": output differs from 1 worker";
    }
  }
}

}  // namespace
}  // namespace tsr
