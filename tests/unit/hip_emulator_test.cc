// Issue 12 item 5: the hip target's emitted HIP C++ runs in the CPU emulator
// with 64-lane (gfx90a) and 32-lane (gfx1100) wavefronts and MFMA as a
// wavefront collective, passes the oracle (PASS_EMULATED, never PASS), and an
// injected MFMA layout bug or wave-size bug fails with numbers. Skips when
// clang is absent.
#include <gtest/gtest.h>

#include "oracle/input_generator.h"
#include "driver/spec_loading.h"
#include "support/diagnostics.h"
#include "emulator/warp_collectives.h"
#include "hip/hip_emit_kernels.h"
#include "hip/hip_emulated_target.h"
#include "tests/unit/emulator_test_support.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace emulator_test;
using namespace spec_builders;

class HipEmulator : public EmulatorFixture {
 protected:
  std::unique_ptr<Target> hip_ = hip::make_emulated_hip_target();

  std::string source(const KernelSpec& spec, const std::string& gfx) {
    return hip::emit_kernel(spec, *hip::find_hip_arch(gfx)).source;
  }
  cuda::emu::EmulatedReport run(const KernelSpec& spec, const std::string& gfx, const std::string& src) {
    return emulate_on(hip_.get(), gfx, spec, src);
  }
};

// Partial 64x64 tiles in M and N, two K steps of 16 and a partial one.
KernelSpec small_mm(DType dtype, Layout a, Layout b) {
  return matmul("mm", dtype, st(70), st(40), st(40), a, b,
                {epi(EpilogueOp::Kind::bias), epi(EpilogueOp::Kind::activation, Op::gelu_tanh)});
}

// Every shipped spec's gfx90a (wave64, MFMA for 16-bit matmul) and gfx1100
// (wave32, plain FMA tiles) source passes at the oracle's trial sizes.
// gfx940 and gfx1030 emit byte-identical source to them (checked).
TEST_F(HipEmulator, EveryShippedSpecPassesEmulatedOnWave64AndWave32) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs"}, diag);
  ASSERT_FALSE(diag.has_errors()) << diag.render();
  std::vector<EmulationJob> jobs;
  for (const KernelSpec& spec : specs) {
    EXPECT_EQ(source(spec, "gfx90a"), source(spec, "gfx940")) << spec.name;
    EXPECT_EQ(source(spec, "gfx1100"), source(spec, "gfx1030")) << spec.name;
    for (const char* gfx : {"gfx90a", "gfx1100"}) jobs.push_back({spec, source(spec, gfx), gfx});
  }
  EXPECT_EQ(jobs.size(), 54u);
  const std::vector<cuda::emu::EmulatedReport> reports = emulate_all(jobs, hip_.get());
  for (size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(jobs[i].spec.name + " on " + jobs[i].arch);
    EXPECT_EQ(reports[i].evidence, "PASS_EMULATED") << reports[i].oracle.reason;
    EXPECT_EQ(reports[i].oracle.verdict, Verdict::pass_emulated);
    EXPECT_EQ(reports[i].oracle.reason, kEmulatedReason);
    EXPECT_EQ(reports[i].oracle.trials, kTrialCount);
  }
}

// Every operand layout of the MFMA path and both 16-bit types.
TEST_F(HipEmulator, MfmaMatmulAllLayoutsPass) {
  std::vector<EmulationJob> jobs;
  for (DType dtype : {DType::bf16, DType::f16})
    for (Layout a : {Layout::row, Layout::col})
      for (Layout b : {Layout::row, Layout::col}) {
        const KernelSpec spec = small_mm(dtype, a, b);
        jobs.push_back({spec, source(spec, "gfx90a"), "gfx90a"});
      }
  const std::vector<cuda::emu::EmulatedReport> reports = emulate_all(jobs, hip_.get());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const MatmulSpec& m = jobs[i].spec.matmul();
    SCOPED_TRACE(std::string(dtype_name(jobs[i].spec.dtype)) + (m.a == Layout::row ? " a:row" : " a:col") +
                 (m.b == Layout::row ? " b:row" : " b:col"));
    EXPECT_EQ(reports[i].evidence, "PASS_EMULATED") << reports[i].oracle.reason;
  }
}

// Golden positions from AMD's matrix instruction calculator for
// v_mfma_f32_32x32x8f16 (gfx90a): A[i][k] is lane i + 32*(k/4), element k%4;
// D[i][j] is lane j + 32*((i/4)%2), register (i%4) + 4*(i/8). One non-zero
// A and B element each put one product at a known D register.
TEST(HipEmulatorMfma, LayoutMatchesTheMatrixInstructionCalculator) {
  std::array<cuda::emu::MfmaLane, cuda::emu::kMaxWaveSize> lanes{};
  const uint16_t two = 0x4000, three = 0x4200;   // f16 2.0, 3.0
  lanes[13 + 32].a[1] = two;     // A[13][5]: lane 45, element 1
  lanes[7 + 32].b[1] = three;    // B[5][7]:  lane 39, element 1
  cuda::emu::mfma_32x32x8(lanes, false);
  // D[13][7] = 6: lane 7 + 32*((13/4)%2) = 39, register 13%4 + 4*(13/8) = 5.
  for (int l = 0; l < cuda::emu::kMaxWaveSize; ++l)
    for (int r = 0; r < 16; ++r) EXPECT_EQ(lanes[l].d[r], l == 39 && r == 5 ? 6.0f : 0.0f) << l << " " << r;
}

// Item 5: the A operand's lane -> row mapping altered (rows paired up).
TEST_F(HipEmulator, CatchesMfmaOperandLayoutBug) {
  const KernelSpec spec = small_mm(DType::bf16, Layout::row, Layout::col);
  const std::string src = inject(source(spec, "gfx90a"), "a[j] = (short)As[wm * 32 + (lane & 31)]",
                                 "a[j] = (short)As[wm * 32 + ((lane & 31) ^ 1)]");
  EXPECT_NE(fail_reason(run(spec, "gfx90a", src)).find("elements outside budget"), std::string::npos);
}

// Item 5: the C/D register -> row mapping altered (the two 4-row halves of
// the lanes swapped with the register groups).
TEST_F(HipEmulator, CatchesMfmaResultLayoutBug) {
  const KernelSpec spec = small_mm(DType::f16, Layout::col, Layout::row);
  const std::string src = inject(source(spec, "gfx90a"), "8 * (r >> 2) + 4 * (lane >> 5) + (r & 3)",
                                 "4 * (r >> 2) + 16 * (lane >> 5) + (r & 3)");
  EXPECT_NE(fail_reason(run(spec, "gfx90a", src)).find("elements outside budget"), std::string::npos);
}

// Item 5: a 32-lane butterfly on a 64-lane arch: each half-wave sums alone.
TEST_F(HipEmulator, CatchesWave32ReductionOnWave64) {
  const KernelSpec spec = rowwise("rms", DType::f32, RowOp::rmsnorm, st(3), st(1000), false);
  const std::string src = inject(source(spec, "gfx90a"), "for (int o = 32; o > 0; o >>= 1) v +=",
                                 "for (int o = 16; o > 0; o >>= 1) v +=");
  EXPECT_NE(fail_reason(run(spec, "gfx90a", src)).find("elements outside budget"), std::string::npos);
}

// The wave32 source run with 64-lane wavefronts is wrong too: the arch's
// wave size is what the emulator runs, not what the source assumes.
TEST_F(HipEmulator, Wave32SourceOnAWave64ArchFails) {
  const KernelSpec spec = rowwise("sm", DType::f32, RowOp::softmax, st(2), st(300), false);
  EXPECT_NE(fail_reason(run(spec, "gfx90a", source(spec, "gfx1100"))).find("elements outside budget"),
            std::string::npos);
}

// The emulated hip target is emulated evidence, refuses what the hip
// emitter cannot emit, and the cuda target names its emulator for the driver.
TEST_F(HipEmulator, IsEmulatedEvidenceAndTargetsNameTheirEmulator) {
  EXPECT_TRUE(hip_->device("gfx90a").emulated);
  EXPECT_EQ(hip_->kind(), "hip");
  EXPECT_EQ(hip_->unsupported_reason(elementwise("ew", DType::f32, {Op::add}, rt("n")), "gfx942"),
            "architecture gfx942 is not supported by the hip target");
  const KernelSpec spec = elementwise("ew", DType::f16, {Op::add, Op::silu}, rt("n"));
  Expected<Artifact> art = hip_->compile(spec, "gfx90a", source(spec, "gfx90a"));
  ASSERT_TRUE(art.ok()) << art.error().message();
  EXPECT_EQ(art->target.str(), "hip:gfx90a");
  EXPECT_EQ(art->metadata.at("hip.grid"), "cdiv(n,2048),1,1");
  EXPECT_EQ(art->metadata.at("emulator.wave_size"), "64");
  const std::unique_ptr<Target> cuda_emulated = cuda::emu::make_emulated_cuda_target()->make_emulated();
  EXPECT_EQ(cuda_emulated, nullptr);   // an emulated target has no emulator of its own
}

}  // namespace
}  // namespace tsr
