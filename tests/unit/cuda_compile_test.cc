// The cuda target's compile step without a GPU (Triton-style compile-only
// tests): every spec emits, compiles to PTX and assembles to cubins for
// sm_80/90/100/120, entries and parameter lists match the ABI, and compiler
// errors reach the user. Skips with the reason when the toolkit is absent.
#include <gtest/gtest.h>

#include <cstdlib>

#include "spec/abi.h"
#include "cuda/cuda_abi_check.h"
#include "cuda/cuda_target.h"
#include "cuda/cuda_toolkit.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

class CudaCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    const ToolchainInfo info = target->toolchain();
    if (!info.found) GTEST_SKIP() << "cuda toolchain unavailable: " << info.why_unavailable;
  }
  std::unique_ptr<Target> target = make_cuda_target();
};

// Compiles `spec` for every arch in `archs` and checks entry and parameters.
void compile_everywhere(const Target& target, const KernelSpec& spec, const std::vector<std::string>& archs) {
  SCOPED_TRACE(spec.name);
  Expected<std::string> source = target.emit(spec, "sm_90");
  ASSERT_TRUE(source.ok()) << source.error().message();
  const KernelAbi abi = kernel_abi(spec);
  for (const std::string& arch : archs) {
    SCOPED_TRACE(arch);
    Expected<Artifact> art = target.compile(spec, arch, *source);
    ASSERT_TRUE(art.ok()) << art.error().message();
    const Status abi_checked = target.check_abi(spec, *art);
    EXPECT_TRUE(abi_checked.ok()) << abi_checked.error().message();
    EXPECT_EQ(art->entry, spec.name);
    EXPECT_EQ(art->target.str(), "cuda:" + arch);
    EXPECT_FALSE(art->bytes.empty());
    EXPECT_EQ(art->key.size(), 64u);
    EXPECT_TRUE(art->metadata.count("cuda.grid") && art->metadata.count("cuda.block") &&
                art->metadata.count("cuda.shared_bytes") && art->metadata.count("cuda.nvrtc_version"));
    if (arch == "ptx") {
      EXPECT_EQ(art->kind, "ptx");
      const std::string ptx(art->bytes.begin(), art->bytes.end());
      EXPECT_NE(ptx.find(".target sm_80"), std::string::npos);
      const std::vector<cuda::PtxEntry> entries = cuda::parse_ptx_entries(ptx);
      ASSERT_EQ(entries.size(), 1u);
      EXPECT_EQ(entries[0].name, spec.name);
      ASSERT_EQ(entries[0].params.size(), abi.bindings.size());
      for (size_t i = 0; i < abi.bindings.size(); ++i) {
        EXPECT_EQ(entries[0].params[i].type, ".u64");
        EXPECT_EQ(entries[0].params[i].name, spec.name + "_param_" + std::to_string(i));
      }
    } else {
      EXPECT_EQ(art->kind, "cubin");
      Expected<std::vector<cuda::CubinKernel>> kernels = cuda::read_cubin_kernels(art->bytes);
      ASSERT_TRUE(kernels.ok()) << kernels.error().message();
      bool found = false;
      for (const cuda::CubinKernel& k : *kernels) {
        if (k.name != spec.name) continue;
        found = true;
        ASSERT_TRUE(k.param_sizes.has_value()) << "no EIATTR_KPARAM_INFO for " << k.name;
        EXPECT_EQ(k.param_sizes->size(), abi.bindings.size());
      }
      EXPECT_TRUE(found);
    }
  }
}

TEST_F(CudaCompile, ShippedSpecsBuildForEveryRequiredArch) {
  std::string errors;
  const std::vector<KernelSpec> specs = shipped_specs(&errors);
  ASSERT_TRUE(errors.empty()) << errors;
  ASSERT_FALSE(specs.empty());
  for (const KernelSpec& spec : specs) {
    compile_everywhere(*target, spec, {"sm_80", "sm_90", "sm_100", "sm_120", "ptx"});
  }
}

TEST_F(CudaCompile, CoverageSpecsBuildForEveryListedArch) {
  for (const KernelSpec& spec : coverage_specs()) compile_everywhere(*target, spec, {"sm_90", "ptx"});
  // The other listed archs once per family.
  const std::vector<KernelSpec> few = {coverage_specs()[0], coverage_specs()[2], coverage_specs()[7]};
  for (const KernelSpec& spec : few) compile_everywhere(*target, spec, target->archs());
}

TEST_F(CudaCompile, TensorCoreMatmulUsesMmaSync) {
  const KernelSpec spec = matmul("mm_tc", DType::bf16, rt("M"), rt("N"), rt("K"), Layout::row, Layout::col);
  Expected<Artifact> art = target->compile(spec, "ptx", *target->emit(spec, "ptx"));
  ASSERT_TRUE(art.ok()) << art.error().message();
  const std::string ptx(art->bytes.begin(), art->bytes.end());
  EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), std::string::npos);
  EXPECT_NE(ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_EQ(art->metadata.at("cuda.grid"), "cdiv(N,128),cdiv(M,128),1");
  EXPECT_EQ(art->metadata.at("cuda.block"), "256,1,1");
}

TEST_F(CudaCompile, BrokenSourceSurfacesNvrtcLogAndSpec) {
  KernelSpec spec = elementwise("broken_add", DType::f32, {Op::add}, rt("n"));
  spec.location = {"specs/broken_add.yaml", 2, 1};
  std::string source = *target->emit(spec, "sm_90");
  source.replace(source.find("const long long n ="), 19, "const long long n = undeclared_symbol +");
  Expected<Artifact> art = target->compile(spec, "sm_90", source);
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::toolchain);   // exit code 3
  EXPECT_EQ(exit_code(art.error().kind()), 3);
  const std::string& msg = art.error().message();
  EXPECT_EQ(msg.rfind("specs/broken_add.yaml:2:1: error: NVRTC compilation failed for kernel 'broken_add' "
                      "(cuda:sm_90): nvrtc: NVRTC_ERROR_COMPILATION (--gpu-architecture=compute_80)\n",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("identifier \"undeclared_symbol\" is undefined"), std::string::npos) << msg;
  EXPECT_NE(msg.find("broken_add.cu("), std::string::npos) << msg;
}

TEST_F(CudaCompile, SourceThatBreaksTheAbiIsAnInternalError) {
  // Source emitted for a two-input kernel, compiled under a one-input spec of
  // the same name. A cubin build checks the PTX it assembles (compile); the
  // bytes that ship are checked by check_abi, the pass after compile.
  const KernelSpec two = elementwise("abi_kernel", DType::f32, {Op::add}, rt("n"));
  const KernelSpec one = elementwise("abi_kernel", DType::f32, {Op::relu}, rt("n"));
  auto compile_and_check = [&](const KernelSpec& spec, const std::string& arch, const std::string& source) {
    Expected<Artifact> a = target->compile(spec, arch, source);
    if (!a) return a;
    if (Status s = target->check_abi(spec, *a); !s) return Expected<Artifact>(s.take_error());
    return a;
  };
  Expected<Artifact> art = target->compile(one, "sm_90", *target->emit(two, "sm_90"));
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::internal);
  EXPECT_EQ(art.error().message(),
            "error: ABI check failed for kernel 'abi_kernel' (cuda:sm_90): internal error: PTX entry 'abi_kernel' "
            "has 4 parameters, the kernel ABI has 3 (in0, out, n)");
  // A renamed entry is caught as well.
  const KernelSpec other = elementwise("other_name", DType::f32, {Op::add}, rt("n"));
  Expected<Artifact> ptx = target->compile(other, "ptx", *target->emit(two, "ptx"));
  ASSERT_TRUE(ptx.ok()) << "a PTX artifact's ABI is check_abi's: " << ptx.error().message();
  art = compile_and_check(other, "ptx", *target->emit(two, "ptx"));
  ASSERT_FALSE(art.ok());
  EXPECT_NE(art.error().message().find("internal error: PTX has no .entry 'other_name' (entries: abi_kernel)"),
            std::string::npos)
      << art.error().message();
}

TEST_F(CudaCompile, ToolchainVersionsEnterTheArtifactKey) {
  const KernelSpec spec = elementwise("key_add", DType::f32, {Op::add}, rt("n"));
  const std::string source = *target->emit(spec, "sm_90");
  Expected<Artifact> a = target->compile(spec, "sm_90", source);
  Expected<Artifact> b = target->compile(spec, "sm_90", source);
  Expected<Artifact> c = target->compile(spec, "sm_80", source);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->key, b->key);
  EXPECT_EQ(a->bytes, b->bytes);   // deterministic compile
  EXPECT_NE(a->key, c->key);
  EXPECT_NE(a->toolchain.find("nvrtc "), std::string::npos);
  EXPECT_NE(a->toolchain.find("nvJitLink "), std::string::npos);
  EXPECT_NE(a->toolchain.find(target->toolchain().version.substr(6, 4)), std::string::npos);
}

TEST(CudaToolchain, MissingToolkitIsUnavailableWithTheReason) {
  setenv("TESSERAC_CUDA_ROOT", "/nonexistent/cuda", 1);
  std::unique_ptr<Target> target = make_cuda_target();
  const ToolchainInfo info = target->toolchain();
  const KernelSpec spec = elementwise("no_tk", DType::f32, {Op::add}, rt("n"));
  Expected<Artifact> art = target->compile(spec, "sm_90", *target->emit(spec, "sm_90"));
  unsetenv("TESSERAC_CUDA_ROOT");
  EXPECT_FALSE(info.found);
  EXPECT_EQ(info.why_unavailable, "CUDA toolkit not found at /nonexistent/cuda (set TESSERAC_CUDA_ROOT)");
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::unavailable);
  EXPECT_EQ(art.error().message(),
            "target cuda:sm_90 unavailable: CUDA toolkit not found at /nonexistent/cuda (set TESSERAC_CUDA_ROOT)");
}

}  // namespace
}  // namespace tsr
