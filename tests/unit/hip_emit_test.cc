// The hip target's emitter without a GPU (issue 12 item 1): wave-size and MFMA
// choices per arch, no ROCm header, golden signatures. That clang-15 builds
// every shipped spec's source for every gfx, with no device library, is
// HipCompile.ShippedSpecsBuildForEveryArchWithGoldenMetadata (hip_compile_test.cc).
#include <gtest/gtest.h>

#include "hip/hip_emit_kernels.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;
using hip::find_hip_arch;
using hip::hip_archs;
using hip::HipArch;

const HipArch& arch(const std::string& name) { return *find_hip_arch(name); }

TEST(HipEmit, SelfContainedDeterministicAndWaveSized) {
  for (const KernelSpec& spec : coverage_specs())
    for (const HipArch& a : hip_archs()) {
      SCOPED_TRACE(spec.name + " " + a.name);
      const hip::EmittedHipKernel k = hip::emit_kernel(spec, a);
      EXPECT_EQ(k.source, hip::emit_kernel(spec, a).source);
      EXPECT_EQ(k.source.find("#include"), std::string::npos);
      EXPECT_EQ(k.source.find("__ocml"), std::string::npos);
      EXPECT_EQ(k.source.find("__ockl"), std::string::npos);
      EXPECT_EQ(k.source.find("asm"), std::string::npos);
      EXPECT_NE(k.source.find("#define TSR_WAVE " + std::to_string(a.wave_size) + "\n"), std::string::npos);
      EXPECT_NE(k.source.find("extern \"C\" __global__ void __launch_bounds__(256)\n" + spec.name + "("),
                std::string::npos);
      EXPECT_EQ(k.plan.block_text(), "256,1,1");
      const bool mfma = a.has_mfma && spec.family == Family::matmul && spec.dtype != DType::f32;
      EXPECT_EQ(k.source.find("__builtin_amdgcn_mfma_f32_32x32x8") != std::string::npos, mfma);
    }
}

TEST(HipEmit, ReductionsSpanTheWavefront) {
  const KernelSpec spec = rowwise("sm", DType::f32, RowOp::softmax, rt("rows"), rt("cols"), false);
  const std::string w64 = hip::emit_kernel(spec, arch("gfx90a")).source;
  const std::string w32 = hip::emit_kernel(spec, arch("gfx1100")).source;
  EXPECT_NE(w64.find("for (int o = 32; o > 0; o >>= 1) v += tsr_shfl_xor_sync(0xffffffffu, v, o);"), std::string::npos);
  EXPECT_NE(w64.find("const int lane = threadIdx.x & 63, warp = threadIdx.x >> 6, nwarps = (blockDim.x + 63) >> 6;"),
            std::string::npos);
  EXPECT_NE(w64.find("__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u))"), std::string::npos);
  EXPECT_NE(w32.find("for (int o = 16; o > 0; o >>= 1) v += tsr_shfl_xor_sync(0xffffffffu, v, o);"), std::string::npos);
  EXPECT_NE(w32.find("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;"),
            std::string::npos);
  EXPECT_EQ(w32.find("mbcnt_hi"), std::string::npos);
}

TEST(HipEmit, LaunchPlansAndMetadataKeys) {
  const KernelSpec mm = matmul("mm", DType::bf16, rt("M"), st(96), rt("K"), Layout::row, Layout::col);
  const hip::EmittedHipKernel k = hip::emit_kernel(mm, arch("gfx940"));
  EXPECT_EQ(k.plan.grid_text(), "2,cdiv(M,64),1");
  std::map<std::string, std::string> md;
  k.plan.write_metadata(md, "hip");
  EXPECT_EQ(md, (std::map<std::string, std::string>{{"hip.block", "256,1,1"}, {"hip.grid", "2,cdiv(M,64),1"},
                                                      {"hip.shared_bytes", "0"}}));
  const KernelSpec ew = elementwise("ew", DType::f16, {Op::add}, rt("n"));
  EXPECT_EQ(hip::emit_kernel(ew, arch("gfx1030")).plan.grid_text(), "cdiv(n,2048),1,1");
}

}  // namespace
}  // namespace tsr
