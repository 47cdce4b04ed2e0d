// The hip target's compile step without a GPU (compile-only, like Triton's):
// every shipped spec compiles to a code object for gfx90a, gfx940, gfx1030
// and gfx1100 whose AMDGPU metadata matches the ABI (golden kernel names and
// kernarg sizes); clang's errors reach the user with exit code 3; gfx942 and
// other archs the toolchain cannot build are refused naming the toolchain.
// Skips with the reason where clang-15 is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>

#include "spec/abi.h"
#include "hip/hip_abi_check.h"
#include "hip/hip_target.h"
#include "hip/hip_toolchain.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

class HipCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    const ToolchainInfo info = target->toolchain();
    if (!info.found) GTEST_SKIP() << "hip toolchain unavailable: " << info.why_unavailable;
  }
  std::unique_ptr<Target> target = make_hip_target();
};

// Sets an environment variable for the scope, restoring the old value after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A stand-in clang that only answers --version with `version`.
std::string fake_clang(const std::string& version) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tsr-fake-clang-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  // One file per version: tool discovery is memoized per path.
  const std::filesystem::path tool = dir / ("clang-" + std::to_string(std::hash<std::string>{}(version)));
  std::ofstream(tool) << "#!/bin/sh\necho '" << version << "'\n";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  return tool.string();
}

// Golden kernarg segment sizes of the shipped specs' kernels: 8 bytes per
// binding, no hidden arguments (the emitted kernels read no implicit
// argument), the same on every gfx.
const std::map<std::string, uint64_t> kKernargGolden = {
    {"ew_abs_sqrt_mul_rsqrt_f32", 32}, {"ew_add_f32", 32}, {"ew_clip_sigmoid_f32", 32}, {"ew_div_tanh_f32", 32},
    {"ew_gelu_erf_neg_exp_f16", 24}, {"ew_mul_gelu_tanh_f16", 32}, {"ew_silu_bf16", 24}, {"ew_sub_relu_bf16", 24},
    {"gemm_bias_gelu_bf16", 40}, {"gemm_colcol_bias_silu_f32", 48}, {"gemm_f32", 48}, {"gemm_relu_bf16", 24},
    {"gemm_residual_scale_clamp_f16", 32}, {"layernorm_f16", 40}, {"layernorm_f32", 24}, {"log_softmax_bf16", 32},
    {"rmsnorm_bf16", 32}, {"rmsnorm_f32", 32}, {"softmax_f32", 24},
    {"attn_alibi_f16", 64}, {"attn_f32_d64", 48}, {"attn_gqa_32x8_bf16", 40}, {"attn_lse_bf16", 64},
    {"attn_mqa_decode_bf16", 48}, {"attn_prefill_causal_bf16", 48}, {"attn_softcap_bf16_d256", 40},
    {"attn_window_f16", 48}};

TEST_F(HipCompile, ShippedSpecsBuildForEveryArchWithGoldenMetadata) {
  std::string errors;
  const std::vector<KernelSpec> specs = shipped_specs(&errors);
  ASSERT_TRUE(errors.empty()) << errors;
  ASSERT_EQ(specs.size(), kKernargGolden.size());
  // The compiles are subprocesses: four at a time, checked on this thread.
  for (const KernelSpec& spec : specs) {
    SCOPED_TRACE(spec.name);
    ASSERT_EQ(kKernargGolden.count(spec.name), 1u);
    std::vector<std::string> archs = target->archs();
    std::vector<std::future<Expected<Artifact>>> built;
    for (const std::string& arch : archs)
      built.push_back(std::async(std::launch::async, [&, arch]() -> Expected<Artifact> {
        Expected<std::string> source = target->emit(spec, arch);
        if (!source) return source.take_error();
        return target->compile(spec, arch, *source);
      }));
    for (size_t i = 0; i < archs.size(); ++i) {
      const std::string& arch = archs[i];
      SCOPED_TRACE(arch);
      Expected<Artifact> art = built[i].get();
      ASSERT_TRUE(art.ok()) << art.error().message();
      const Status abi_checked = target->check_abi(spec, *art);
      EXPECT_TRUE(abi_checked.ok()) << abi_checked.error().message();
      EXPECT_EQ(art->target.str(), "hip:" + arch);
      EXPECT_EQ(art->kind, "code_object");
      EXPECT_EQ(art->entry, spec.name);
      EXPECT_EQ(art->key.size(), 64u);
      EXPECT_EQ(art->toolchain, target->toolchain().version);
      EXPECT_EQ(art->metadata.at("hip.target_id"), arch);
      EXPECT_TRUE(art->metadata.count("hip.grid") && art->metadata.count("hip.block") &&
                  art->metadata.count("hip.shared_bytes"));
      Expected<hip::CodeObjectMetadata> meta = hip::read_code_object_metadata(art->bytes);
      ASSERT_TRUE(meta.ok()) << meta.error().message();
      EXPECT_EQ(meta->target, "amdgcn-amd-amdhsa--" + arch);
      ASSERT_EQ(meta->kernels.size(), 1u);
      EXPECT_EQ(meta->kernels[0].name, spec.name);
      EXPECT_EQ(meta->kernels[0].symbol, spec.name + ".kd");
      EXPECT_EQ(meta->kernels[0].kernarg_segment_size, kKernargGolden.at(spec.name));
      EXPECT_EQ(meta->kernels[0].args.size() * 8, kKernargGolden.at(spec.name));
    }
  }
}

TEST_F(HipCompile, BrokenSourceSurfacesClangsErrorWithExitCode3) {
  KernelSpec spec = elementwise("broken_add", DType::f32, {Op::add}, rt("n"));
  spec.location = {"specs/broken_add.yaml", 2, 1};
  std::string source = *target->emit(spec, "gfx90a");
  const size_t at = source.find("extern \"C\"");
  ASSERT_NE(at, std::string::npos);
  source.insert(at, "static int broken = undeclared_symbol;\n");
  Expected<Artifact> art = target->compile(spec, "gfx90a", source);
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::toolchain);
  EXPECT_EQ(exit_code(art.error().kind()), 3);
  const std::string& msg = art.error().message();
  EXPECT_EQ(msg.rfind("specs/broken_add.yaml:2:1: error: clang compilation failed for kernel 'broken_add' "
                      "(hip:gfx90a): clang failed to compile kernel 'broken_add' for hip:gfx90a (exit 1):\n",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("error: use of undeclared identifier 'undeclared_symbol'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel.hip:"), std::string::npos) << msg;
}

TEST_F(HipCompile, SourceThatBreaksTheAbiIsAnInternalError) {
  // Source emitted for a two-input kernel, compiled under a one-input spec of the same name.
  const KernelSpec two = elementwise("abi_kernel", DType::f32, {Op::add}, rt("n"));
  const KernelSpec one = elementwise("abi_kernel", DType::f32, {Op::relu}, rt("n"));
  // compile makes the code object; check_abi, the pass after it, refuses it.
  auto compile_and_check = [&](const KernelSpec& spec, const std::string& arch, const std::string& source) {
    Expected<Artifact> a = target->compile(spec, arch, source);
    if (!a) return a;
    if (Status s = target->check_abi(spec, *a); !s) return Expected<Artifact>(s.take_error());
    return a;
  };
  Expected<Artifact> art = compile_and_check(one, "gfx1100", *target->emit(two, "gfx1100"));
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::internal);
  EXPECT_EQ(art.error().message(),
            "error: ABI check failed for kernel 'abi_kernel' (hip:gfx1100): internal error: code object kernel "
            "'abi_kernel' has 4 explicit arguments, the kernel ABI has 3 (in0, out, n)");
  const KernelSpec other = elementwise("other_name", DType::f32, {Op::add}, rt("n"));
  art = compile_and_check(other, "gfx90a", *target->emit(two, "gfx90a"));
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().message(),
            "error: ABI check failed for kernel 'other_name' (hip:gfx90a): internal error: code object has no "
            "kernel 'other_name' (kernels: abi_kernel)");
}

TEST_F(HipCompile, ToolchainVersionAndArchEnterTheArtifactKey) {
  const KernelSpec spec = elementwise("key_add", DType::f32, {Op::add}, rt("n"));
  const std::string source = *target->emit(spec, "gfx90a");
  Expected<Artifact> a = target->compile(spec, "gfx90a", source);
  Expected<Artifact> b = target->compile(spec, "gfx90a", source);
  Expected<Artifact> c = target->compile(spec, "gfx940", source);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->key, b->key);
  EXPECT_EQ(a->bytes, b->bytes);   // deterministic compile
  EXPECT_NE(a->key, c->key);
  EXPECT_NE(a->bytes, c->bytes);
  // Another clang (a different version line) is another key before anything compiles.
  ScopedEnv env("TESSERAC_HIP_CLANG", fake_clang("Debian clang version 15.0.7"));
  EXPECT_EQ(target->toolchain().version, "Debian clang version 15.0.7");
}

TEST(HipToolchain, Gfx942AndUnknownArchsAreRefusedNamingTheToolchain) {
  ScopedEnv env("TESSERAC_HIP_CLANG", fake_clang("Debian clang version 15.0.6"));
  const std::unique_ptr<Target> target = make_hip_target();
  const KernelSpec spec = elementwise("k", DType::f32, {Op::add}, rt("n"));
  EXPECT_EQ(target->unsupported_reason(spec, "gfx942"),
            "architecture gfx942 cannot be built by the installed toolchain (Debian clang version 15.0.6): gfx942 "
            "needs LLVM/clang >= 17 (ROCm >= 5.7 / 6.x) (supported: gfx90a, gfx940, gfx1030, gfx1100)");
  EXPECT_EQ(target->unsupported_reason(spec, "gfx908"),
            "architecture gfx908 is not supported by the hip target with the installed toolchain (Debian clang "
            "version 15.0.6): a gfx needs an entry in the hip arch table and a clang that knows it (supported: "
            "gfx90a, gfx940, gfx1030, gfx1100)");
  for (const std::string& arch : target->archs()) EXPECT_EQ(target->unsupported_reason(spec, arch), "") << arch;
  EXPECT_EQ(target->unsupported_reason(rowwise("a", DType::f32, RowOp::softmax, rt("r"), rt("c"), false), "gfx90a"),
            "");
  Expected<Artifact> art = target->compile(spec, "gfx942", "");
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::invalid_input);
}

TEST(HipToolchain, MissingClangIsTargetUnavailable) {
  ScopedEnv env("TESSERAC_HIP_CLANG", "/nonexistent/clang-15");
  const std::unique_ptr<Target> target = make_hip_target();
  const ToolchainInfo info = target->toolchain();
  EXPECT_FALSE(info.found);
  EXPECT_EQ(info.why_unavailable, "TESSERAC_HIP_CLANG='/nonexistent/clang-15' is not an executable");
  const KernelSpec spec = elementwise("k", DType::f32, {Op::add}, rt("n"));
  Expected<Artifact> art = target->compile(spec, "gfx90a", "");
  ASSERT_FALSE(art.ok());
  EXPECT_EQ(art.error().kind(), ErrorKind::unavailable);
  EXPECT_EQ(art.error().message(),
            "target hip:gfx90a unavailable: TESSERAC_HIP_CLANG='/nonexistent/clang-15' is not an executable");
  EXPECT_EQ(target->unsupported_reason(spec, "gfx942"),
            "architecture gfx942 cannot be built by the installed toolchain (none: TESSERAC_HIP_CLANG='/nonexistent/"
            "clang-15' is not an executable): gfx942 needs LLVM/clang >= 17 (ROCm >= 5.7 / 6.x) (supported: gfx90a, "
            "gfx940, gfx1030, gfx1100)");
  // Without the override, a PATH without clang-15 says what to install.
  ScopedEnv no_override("TESSERAC_HIP_CLANG", "");
  ScopedEnv path("PATH", "/nonexistent");
  EXPECT_EQ(target->toolchain().why_unavailable,
            "clang-15 not found in PATH (install clang-15 and lld-15: packaging/install-deps.sh)");
}

TEST(HipToolchain, CompileCommandIsDeviceOnlyWithoutRocmLibraries) {
  const std::vector<std::string> expected = {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx1100",
                                             "--no-gpu-bundle-output", "-nogpulib", "-nogpuinc", "-O3", "-c"};
  EXPECT_EQ(hip::compile_flags("gfx1100"), expected);
}

}  // namespace
}  // namespace tsr
