// The cuda target without a toolkit: arch refusals, deterministic emission,
// golden signatures and launch geometry, the geometry grammar, and the PTX and
// cubin parsers used by the ABI check (inputs inline, exact text checked).
#include <gtest/gtest.h>

#include "cuda/cuda_abi_check.h"
#include "cuda/cuda_emit_kernels.h"
#include "gpu/gpu_launch_geometry.h"
#include "cuda/cuda_target.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

TEST(CudaTarget, ListsArchsAndRefusesOthersByName) {
  std::unique_ptr<Target> t = make_cuda_target();
  EXPECT_EQ(t->kind(), "cuda");
  EXPECT_EQ(t->archs(), (std::vector<std::string>{"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120", "ptx"}));
  const KernelSpec spec = elementwise("add", DType::f32, {Op::add}, rt("n"));
  EXPECT_EQ(t->unsupported_reason(spec, "sm_90"), "");
  EXPECT_EQ(t->unsupported_reason(spec, "ptx"), "");
  EXPECT_EQ(t->unsupported_reason(spec, "sm_70"),
            "architecture sm_70 is not supported by CUDA 13 (supported: sm_80, sm_86, sm_89, sm_90, sm_100, sm_120, "
            "ptx)");
  EXPECT_EQ(t->unsupported_reason(spec, "sm_75"),
            "architecture sm_75 is not supported by the cuda target: the kernels need sm_80 or newer (supported: "
            "sm_80, sm_86, sm_89, sm_90, sm_100, sm_120, ptx)");
  EXPECT_EQ(t->unsupported_reason(spec, "gfx90a"),
            "architecture gfx90a is not supported by the cuda target (supported: sm_80, sm_86, sm_89, sm_90, "
            "sm_100, sm_120, ptx)");
  Expected<std::string> src = t->emit(spec, "sm_70");
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.error().kind(), ErrorKind::invalid_input);
  EXPECT_EQ(t->budget_floor(spec).atol, 0.0);
}

TEST(CudaEmit, IsDeterministicAndArchIndependent) {
  std::unique_ptr<Target> t = make_cuda_target();
  for (const KernelSpec& spec : coverage_specs()) {
    SCOPED_TRACE(spec.name);
    Expected<std::string> a = t->emit(spec, "sm_80");
    Expected<std::string> b = t->emit(spec, "sm_120");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
    EXPECT_NE(a->find("extern \"C\" __global__ void __launch_bounds__(256)\n" + spec.name + "("), std::string::npos);
    EXPECT_EQ(a->find("#include"), std::string::npos);   // self-contained for NVRTC
  }
}

TEST(CudaEmit, GoldenSignatures) {
  const KernelSpec ew = elementwise("ew_add_mul", DType::bf16, {Op::add, Op::mul}, rt("n"));
  EXPECT_EQ(gpu::kernel_signature(ew, 256),
            "extern \"C\" __global__ void __launch_bounds__(256)\n"
            "ew_add_mul(const tsr_t* __restrict__ p_in0,\n"
            "    const tsr_t* __restrict__ p_in1,\n"
            "    const tsr_t* __restrict__ p_in2,\n"
            "    tsr_t* __restrict__ p_out,\n"
            "    long long tsr_dim0 /* n */)");
  using K = EpilogueOp::Kind;
  const KernelSpec mm = matmul("gemm", DType::f16, rt("M"), st(64), rt("K"), Layout::row, Layout::col,
                               {epi(K::bias), epi(K::residual)});
  EXPECT_EQ(gpu::kernel_signature(mm, 256),
            "extern \"C\" __global__ void __launch_bounds__(256)\n"
            "gemm(const tsr_t* __restrict__ p_a,\n"
            "    const tsr_t* __restrict__ p_b,\n"
            "    const tsr_t* __restrict__ p_bias,\n"
            "    const tsr_t* __restrict__ p_residual,\n"
            "    tsr_t* __restrict__ p_c,\n"
            "    long long tsr_dim0 /* M */,\n"
            "    long long tsr_dim1 /* K */)");
  const KernelSpec ln = rowwise("ln", DType::f32, RowOp::layernorm, st(4), rt("cols"), true);
  EXPECT_EQ(gpu::kernel_signature(ln, 256),
            "extern \"C\" __global__ void __launch_bounds__(256)\n"
            "ln(const tsr_t* __restrict__ p_x,\n"
            "    const tsr_t* __restrict__ p_weight,\n"
            "    const tsr_t* __restrict__ p_bias,\n"
            "    tsr_t* __restrict__ p_y,\n"
            "    long long tsr_dim0 /* cols */)");
}

TEST(CudaEmit, GoldenLaunchPlans) {
  struct Case {
    KernelSpec spec;
    std::string block, grid;
  };
  const std::vector<Case> cases = {
      {elementwise("e1", DType::f32, {Op::add}, rt("n")), "256,1,1", "cdiv(n,1024),1,1"},
      {elementwise("e2", DType::bf16, {Op::relu}, rt("n")), "256,1,1", "cdiv(n,2048),1,1"},
      {elementwise("e3", DType::f16, {Op::relu}, st(5000)), "256,1,1", "3,1,1"},
      {matmul("m1", DType::bf16, rt("M"), st(4096), rt("K"), Layout::row, Layout::col), "256,1,1",
       "32,cdiv(M,128),1"},
      {matmul("m2", DType::f32, st(100), rt("N"), st(7), Layout::col, Layout::row), "256,1,1", "cdiv(N,64),2,1"},
      {rowwise("r1", DType::bf16, RowOp::rmsnorm, rt("tokens"), st(4096), true), "256,1,1", "tokens,1,1"},
      {rowwise("r2", DType::f32, RowOp::softmax, st(7), rt("c"), false), "256,1,1", "7,1,1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec.name);
    const gpu::LaunchPlan plan = cuda::emit_kernel(c.spec).plan;
    EXPECT_EQ(plan.block_text(), c.block);
    EXPECT_EQ(plan.grid_text(), c.grid);
    EXPECT_EQ(plan.shared_bytes, 0);
  }
}

TEST(CudaEmit, ElementwisePipelineAndEpilogueText) {
  const KernelSpec ew = elementwise("chain", DType::f32, {Op::sub, Op::gelu_tanh, Op::max}, rt("n"));
  const std::string src = cuda::emit_kernel(ew).source;
  EXPECT_NE(src.find("__device__ __forceinline__ float tsr_apply(float x0, float x1, float x2) {\n"
                     "  float v = x0;\n"
                     "  v = (v - x1);   // sub\n"
                     "  v = (0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))));   // gelu_tanh\n"
                     "  v = fmaxf(v, x2);   // max\n"
                     "  return v;\n}\n"),
            std::string::npos)
      << src;
  using K = EpilogueOp::Kind;
  const KernelSpec mm = matmul("mm", DType::bf16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::row,
                               {epi(K::residual), epi(K::scale), epi(K::clamp), epi(K::activation, Op::gelu_erf)});
  const std::string msrc = cuda::emit_kernel(mm).source;
  EXPECT_NE(msrc.find("  v += tsr_ld(residual, row * N + col);\n"
                      "  v *= 0.5f;\n"
                      "  v = fminf(fmaxf(v, -2.0f), 3.0f);\n"
                      "  v = (0.5f * v * (1.0f + erff(v * 0.70710678118654752f)));   // gelu_erf\n"),
            std::string::npos)
      << msrc;
}

// A launch with an empty output returns before any load or barrier (the
// check is uniform per block, so no thread waits at a __syncthreads alone).
TEST(CudaEmit, EmptyOutputsReturnBeforeAnyWork) {
  const struct {
    KernelSpec spec;
    const char* early_return;
  } cases[] = {
      {elementwise("ew", DType::bf16, {Op::add}, rt("n")), "  if (n == 0) return;\n"},
      {matmul("mm16", DType::f16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::col),
       "  const long long M = tsr_dim0, N = tsr_dim1, K = tsr_dim2;\n  if (M == 0 || N == 0) return;\n"},
      {matmul("mm32", DType::f32, rt("M"), st(8), rt("K"), Layout::col, Layout::row),
       "  const long long M = tsr_dim0, N = ((long long)8), K = tsr_dim1;\n  if (M == 0 || N == 0) return;\n"},
      {rowwise("sm", DType::f32, RowOp::softmax, rt("rows"), rt("cols"), false),
       "  if (row >= rows || cols == 0) return;"},
  };
  for (const auto& c : cases) {
    const std::string src = cuda::emit_kernel(c.spec).source;
    const size_t body = src.find("\n" + c.spec.name + "(");   // the kernel definition
    const size_t at = src.find(c.early_return, body);
    ASSERT_NE(at, std::string::npos) << src;
    EXPECT_EQ(src.find("tsr_syncthreads()", body), src.find("tsr_syncthreads()", at)) << c.spec.name;
    EXPECT_EQ(src.find("tsr_ld", body), src.find("tsr_ld", at)) << c.spec.name;
  }
}

TEST(CudaEmit, FloatLiteralsRoundTrip) {
  EXPECT_EQ(gpu::float_literal(1.0), "1.0f");
  EXPECT_EQ(gpu::float_literal(1e-5), "9.99999975e-06f");
  EXPECT_EQ(gpu::float_literal(-0.125), "-0.125f");
  EXPECT_EQ(gpu::float_literal(1e300), "__int_as_float(0x7f800000)");
}

// The compiler evaluates geometry with the stub's own code (one grammar, one
// set of limits); an empty problem never reaches it, the stub skips it first.
TEST(CudaGeometry, EvaluatesTheGrammarWithTheStubsEvaluator) {
  const std::map<std::string, int64_t> s = {{"n", 1000}, {"M", 0}, {"big", int64_t{1} << 40}};
  using G = std::array<uint32_t, 3>;
  const auto grid = [&](const std::string& text) { return gpu::evaluate_geometry(text, gpu::GeometryKind::grid, s); };
  const auto error = [&](const std::string& text, gpu::GeometryKind kind = gpu::GeometryKind::grid) {
    Expected<G> g = gpu::evaluate_geometry(text, kind, s);
    return g.ok() ? std::string("ok") : g.error().message();
  };
  EXPECT_EQ(*grid("256,1,1"), (G{256, 1, 1}));
  EXPECT_EQ(*grid("cdiv(n,128),n,1"), (G{8, 1000, 1}));
  EXPECT_EQ(*grid("cdiv(big,1024),1,1"), (G{1073741824, 1, 1}));
  EXPECT_EQ(error("cdiv(1000,1000),cdiv(M,128),1"), "cuda.grid 'cdiv(1000,1000),cdiv(M,128),1' has a component below 1");
  EXPECT_EQ(error("cdiv(n,0),1,1"), "cuda.grid 'cdiv(n,0),1,1' does not parse or names an unknown scalar");
  EXPECT_EQ(error("unknown,1,1"), "cuda.grid 'unknown,1,1' does not parse or names an unknown scalar");
  EXPECT_EQ(error("1,1"), "cuda.grid '1,1' does not have three components");
  EXPECT_EQ(error("1,big,1"), "cuda.grid '1,big,1' exceeds the grid limit (x 2^31-1, y and z 65535)");
  EXPECT_EQ(error("1,65535,65535"), "ok");
  EXPECT_EQ(error("2147483648,1,1"), "cuda.grid '2147483648,1,1' exceeds the grid limit (x 2^31-1, y and z 65535)");
  EXPECT_EQ(error("1024,1,1", gpu::GeometryKind::block), "ok");
  EXPECT_EQ(error("1,1,65", gpu::GeometryKind::block),
            "cuda.block '1,1,65' exceeds the block limit (x and y 1024, z 64)");
  EXPECT_EQ(error("64,32,1", gpu::GeometryKind::block), "cuda.block '64,32,1' has more than 1024 threads per block");
}

// Every artifact's geometry is checked at build time where it is static.
TEST(CudaGeometry, BuildTimeCheckOfTheLaunchPlan) {
  gpu::LaunchPlan plan;
  plan.block_x = 256;
  plan.grid_x = "cdiv(n,1024)";
  EXPECT_TRUE(gpu::check_launch_geometry(plan, {"n"}).ok());
  plan.grid_y = "cdiv(0,128)";   // an empty static problem: the stub launches nothing
  EXPECT_TRUE(gpu::check_launch_geometry(plan, {"n"}).ok());
  plan.grid_y = "cdiv(10000000,128)";   // a static M past grid y
  Status s = gpu::check_launch_geometry(plan, {"n"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::invalid_input);
  EXPECT_EQ(s.error().message(),
            "launch grid 'cdiv(n,1024),cdiv(10000000,128),1' exceeds the grid limit (x 2^31-1, y and z 65535)");
  plan.grid_y = "1";
  s = gpu::check_launch_geometry(plan, {});   // n is not a scalar of the ABI: an emitter bug
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind(), ErrorKind::internal);
  EXPECT_EQ(s.error().message(),
            "internal: cuda launch grid 'cdiv(n,1024),1,1' does not parse or names an unknown scalar");
  plan.block_x = 2048;
  s = gpu::check_launch_geometry(plan, {"n"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "internal: cuda launch block '2048,1,1' exceeds the block limit (x and y 1024, z 64)");
}

// A static matmul whose grid y would pass 65535 is refused at build time
// with the spec's location, not at launch.
TEST(CudaGeometry, StaticSizesPastTheGridLimitAreRefusedByCompile) {
  const KernelSpec spec = spec_builders::matmul("mm_tall", DType::bf16, spec_builders::st(65536 * 128),
                                                spec_builders::st(128), spec_builders::st(64), Layout::row,
                                                Layout::col, {});
  std::unique_ptr<Target> t = make_cuda_target();
  Expected<Artifact> art = t->compile(spec, "sm_90", "unused");
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::invalid_input);
  EXPECT_EQ(art.error().message(),
            "error: launch geometry check failed for kernel 'mm_tall' (cuda:sm_90): launch grid "
            "'1,65536,1' exceeds the grid limit (x 2^31-1, y and z 65535)");
}

TEST(CudaAbiCheck, ParsesPtxEntryParameterLists) {
  const std::string ptx = R"(//
.version 9.0
.target sm_80
.address_size 64

	// .globl	k1
.visible .entry k1(
	.param .u64 .ptr .align 1 k1_param_0,
	.param .u64 .ptr .global .align 2 k1_param_1,
	.param .u64 k1_param_2
)
{
	ret;
}
.visible .entry k2()
{
	ret;
}
)";
  const std::vector<cuda::PtxEntry> entries = cuda::parse_ptx_entries(ptx);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "k1");
  ASSERT_EQ(entries[0].params.size(), 3u);
  EXPECT_EQ(entries[0].params[0].type, ".u64");
  EXPECT_TRUE(entries[0].params[0].is_pointer);
  EXPECT_TRUE(entries[0].params[1].is_pointer);
  EXPECT_FALSE(entries[0].params[2].is_pointer);
  EXPECT_EQ(entries[0].params[2].name, "k1_param_2");
  EXPECT_EQ(entries[1].name, "k2");
  EXPECT_TRUE(entries[1].params.empty());

  // k1 as in0, out, n matches; as a 2-input kernel it does not; a pointer where
  // the int64 scalar belongs is named.
  KernelSpec spec = elementwise("k1", DType::f32, {Op::relu}, rt("n"));
  EXPECT_TRUE(cuda::check_ptx_abi(ptx, "k1", kernel_abi(spec)).ok());
  spec.name = "k2";
  Status s = cuda::check_ptx_abi(ptx, "k2", kernel_abi(spec));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "internal error: PTX entry 'k2' has 0 parameters, the kernel ABI has 3 (in0, out, n)");
  const std::string swapped = R"(.visible .entry k3(
	.param .u64 .ptr .align 1 k3_param_0,
	.param .u64 .ptr .align 1 k3_param_1,
	.param .u64 .ptr .align 1 k3_param_2
))";
  s = cuda::check_ptx_abi(swapped, "k3", kernel_abi(spec));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(),
            "internal error: PTX entry 'k3' parameter 2 is '.u64 .ptr', binding 'n' (scalar) needs an int64");
}

TEST(CudaAbiCheck, RejectsMalformedCubins) {
  const KernelSpec spec = elementwise("k", DType::f32, {Op::relu}, rt("n"));
  Status s = cuda::check_cubin_abi({1, 2, 3}, "k", kernel_abi(spec));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "internal error: malformed cubin: no ELF header");
  std::vector<uint8_t> elf(64, 0);
  elf[0] = 0x7f, elf[1] = 'E', elf[2] = 'L', elf[3] = 'F', elf[4] = 2, elf[5] = 1, elf[18] = 190;
  elf[40] = 0xff, elf[41] = 0xff, elf[58] = 64, elf[60] = 3;   // section table far out of range
  s = cuda::check_cubin_abi(elf, "k", kernel_abi(spec));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "internal error: malformed cubin: section table out of range");
  elf[18] = 62;   // x86-64
  s = cuda::check_cubin_abi(elf, "k", kernel_abi(spec));
  EXPECT_EQ(s.error().message(), "internal error: malformed cubin: e_machine is not EM_CUDA");
}

}  // namespace
}  // namespace tsr
