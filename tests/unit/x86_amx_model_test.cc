// The x86:v4+amx bf16 matmul kernels run against a software model of the
// AMX instructions (amx_model.h): the emitted source, compiled by the x86
// compile step with one added define, loaded by the stub's loader and judged
// by the oracle within the spec's bf16 budget. EMULATED: this checks the
// kernels' logic (packing, tile use, tails, tasks, epilogue), not AMX
// hardware; every pass here is PASS_EMULATED.
#include <gtest/gtest.h>

#include <mutex>

#include "oracle/oracle.h"
#include "spec/abi.h"
#include "target/launcher.h"
#include "x86/x86_target.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/test_executor.h"
#include "tests/unit/x86_fixture.h"

extern "C" {
#include "../../runtime-stub/src/tsr_internal.h"   // the x86 loader, without variant selection
}

namespace tsr {
namespace {

using namespace spec_builders;

// The compile define that swaps the AMX intrinsics for the model.
const char* kModelDefine = "#define TSR_AMX_MODEL \"" TSR_SOURCE_DIR "/tests/unit/amx_model.h\"\n";

// A launcher for model-compiled artifacts: the stub's x86 loader and call
// (no variant selection, which would rightly refuse AMX on this CPU), on a
// device that says it is emulated.
class AmxModelLauncher final : public Launcher {
 public:
  explicit AmxModelLauncher(const Target& x86) : x86_(x86) {}
  BudgetFloor budget_floor(const KernelSpec& spec) const override { return x86_.budget_floor(spec); }
  DeviceInfo device(const std::string&) const override {
    DeviceInfo d = x86_.device("v4");
    d.emulated = true;
    d.description += " with the AMX software model (tests/unit/amx_model.h)";
    return d;
  }
  Status launch(const KernelSpec& spec, const Artifact& art, LaunchArgs& args) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    tsr_x86_loaded loaded;
    char msg[512] = "";
    if (tsr_x86_load_with(TSR_X86_SCRATCH_MEMFD, art.bytes.data(), art.bytes.size(), art.entry.c_str(), &loaded, msg,
                          sizeof msg) != TSR_OK)
      return toolchain_error(msg);
    std::vector<void*> buffers;
    for (size_t i = 0; i < args.buffers.size(); ++i) buffers.push_back(args.payload(i));
    const tsr_status st = tsr_x86_call(&loaded, buffers.data(), args.scalars.data(), msg, sizeof msg);
    tsr_x86_unload_loaded(&loaded);
    (void)spec;
    return st == TSR_OK ? ok() : toolchain_error(msg);
  }

 private:
  const Target& x86_;
  mutable std::mutex mutex_;
};

class X86AmxModel : public testing::X86Fixture {
 protected:
  void SetUp() override {
    testing::X86Fixture::SetUp();
    if (IsSkipped()) return;
    // The model kernels are v4 code around the tiles: the CPU must run v4.
    if (!target_->device("v4").present) GTEST_SKIP() << "this CPU lacks x86-64-v4: " << target_->device("v4").description;
  }

  // The AMX kernel of `spec` built against the model, or the error.
  Expected<Artifact> build(const KernelSpec& spec, const std::string& edit_from = "", const std::string& edit_to = "") {
    Expected<std::string> source = target_->emit(spec, "v4+amx");
    if (!source) return source.take_error();
    EXPECT_NE(source->find("_tile_dpbf16ps(3, 5, 7)"), std::string::npos) << spec.name << ": not the AMX kernel";
    std::string text = kModelDefine + *source;
    if (!edit_from.empty()) {
      const size_t at = text.find(edit_from);
      EXPECT_NE(at, std::string::npos) << edit_from;
      if (at != std::string::npos) text.replace(at, edit_from.size(), edit_to);
    }
    return target_->compile(spec, "v4+amx", text);
  }

  OracleReport oracle(const KernelSpec& spec, const Artifact& art) {
    const AmxModelLauncher model(*target_);
    return run_oracle(spec, model, art);
  }
};

std::vector<KernelSpec> shipped_bf16_matmuls() {
  DiagnosticEngine diag;
  std::vector<KernelSpec> out;
  for (KernelSpec& s : load_specs({TSR_SOURCE_DIR "/specs"}, diag))
    if (s.family == Family::matmul && s.dtype == DType::bf16) out.push_back(std::move(s));
  return out;
}

TEST_F(X86AmxModel, EveryShippedBf16MatmulPassesEmulated) {
  const std::vector<KernelSpec> specs = shipped_bf16_matmuls();
  ASSERT_GE(specs.size(), 2u);   // gemm_bias_gelu_bf16, gemm_relu_bf16
  for (const KernelSpec& spec : specs) {
    Expected<Artifact> art = build(spec);
    ASSERT_TRUE(art.ok()) << spec.name << ": " << art.error().message();
    const OracleReport r = oracle(spec, *art);
    EXPECT_EQ(r.verdict, Verdict::pass_emulated) << spec.name << ": " << r.reason;
    EXPECT_EQ(r.reason, kEmulatedReason) << spec.name;
    EXPECT_TRUE(r.determinism_checked) << spec.name;
  }
}

// Tails in M, N and K (K odd, K below one tile step, K = 1), both layouts of
// A and of B, every epilogue kind, static and runtime extents.
TEST_F(X86AmxModel, OddShapesEveryLayoutAndEpiloguePassEmulated) {
  using K = EpilogueOp::Kind;
  const std::vector<EpilogueOp> all = {epi(K::bias), epi(K::residual), epi(K::scale), epi(K::clamp),
                                       epi(K::activation, Op::gelu_tanh)};
  // (row, col) and (col, row) take each of the four packing loops once.
  std::vector<KernelSpec> specs = {
      matmul("amx_rowcol", DType::bf16, rt("M"), st(47), rt("K"), Layout::row, Layout::col, all),
      matmul("amx_colrow", DType::bf16, rt("M"), st(47), rt("K"), Layout::col, Layout::row, all)};
  specs.push_back(matmul("amx_k1", DType::bf16, st(17), st(33), st(1), Layout::row, Layout::col));
  specs.push_back(matmul("amx_k31", DType::bf16, st(1), st(16), st(31), Layout::row, Layout::row, {epi(K::bias)}));
  specs.push_back(matmul("amx_k65", DType::bf16, st(129), st(65), st(65), Layout::col, Layout::row));
  for (const KernelSpec& spec : specs) {
    Expected<Artifact> art = build(spec);
    ASSERT_TRUE(art.ok()) << spec.name << ": " << art.error().message();
    const OracleReport r = oracle(spec, *art);
    EXPECT_EQ(r.verdict, Verdict::pass_emulated) << spec.name << ": " << r.reason;
  }
}

// The check can fail: one tile product with the wrong B tile is a FAIL.
TEST_F(X86AmxModel, AWrongTileOperandFails) {
  const KernelSpec spec = matmul("amx_mutant", DType::bf16, st(40), st(48), st(70), Layout::row, Layout::row);
  Expected<Artifact> art = build(spec, "_tile_dpbf16ps(1, 4, 7)", "_tile_dpbf16ps(1, 4, 6)");
  ASSERT_TRUE(art.ok()) << art.error().message();
  const OracleReport r = oracle(spec, *art);
  EXPECT_EQ(r.verdict, Verdict::fail) << r.reason;
}

// The split into tasks is the shape's: 1 and 3 scrambled workers give the same tasks and bits.
TEST_F(X86AmxModel, BitIdenticalForAnyWorkerCount) {
  const KernelSpec spec = matmul("amx_workers", DType::bf16, st(300), st(200), st(97), Layout::row, Layout::col,
                                 {epi(EpilogueOp::Kind::bias)});
  Expected<Artifact> art = build(spec);
  ASSERT_TRUE(art.ok()) << art.error().message();
  const AmxModelLauncher model(*target_);
  LaunchArgs inputs;
  const KernelAbi abi = kernel_abi(spec);
  uint32_t fill = 12345;
  for (const Binding* b : abi.buffers()) {
    std::vector<uint8_t> bytes(static_cast<size_t>(*abi.element_count(*b, {})) * 2);
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
      fill = fill * 1103515245u + 12345u;
      const uint16_t bits = static_cast<uint16_t>(0x3c00u + (fill >> 20) % 0x700u) | ((fill >> 8) & 0x8000u);
      bytes[i] = static_cast<uint8_t>(bits), bytes[i + 1] = static_cast<uint8_t>(bits >> 8);
    }
    inputs.buffers.push_back(std::move(bytes));
  }
  std::vector<uint8_t> first;
  uint64_t first_tasks = 0;
  for (uint32_t workers : {1u, 3u}) {
    LaunchArgs args = inputs;
    testing::ScrambledExecutor scrambled(workers, workers);
    {
      testing::ExecutorScope scope(scrambled.executor());
      ASSERT_TRUE(model.launch(spec, *art, args).ok());
    }
    EXPECT_EQ(scrambled.violations(), 0u);
    if (workers == 1) {
      first = args.buffers.back(), first_tasks = scrambled.tasks();
      EXPECT_GT(first_tasks, 2u);
    } else {
      EXPECT_EQ(scrambled.tasks(), first_tasks);
      EXPECT_EQ(args.buffers.back(), first) << "outputs differ between 1 and " << workers << " workers";
    }
  }
}

}  // namespace
}  // namespace tsr
