// The hip target's emitter without a GPU (issue 12 item 1): every shipped spec
// (between them every op, epilogue, layout and dtype) emits for gfx90a, gfx940,
// gfx1030 and gfx1100 and clang-15 builds it as a device-only code object with no ROCm header and no
// device library; wave-size and MFMA choices per arch; golden signatures.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "support/file_io.h"
#include "support/subprocess.h"
#include "targets/hip/hip_emit_kernels.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;
using hip::find_hip_arch;
using hip::hip_archs;
using hip::HipArch;

const HipArch& arch(const std::string& name) { return *find_hip_arch(name); }

// clang-15 with the flags of DESIGN.md §3 for a build without device libraries.
std::string clang15() {
  const ProcessResult r = run_process({"clang-15", "--version"});
  return r.exit_code == 0 ? "clang-15" : "";
}

// "" when the source builds for the arch, else clang's output.
std::string compile(const std::string& dir, const std::string& name, const std::string& source, const std::string& gfx) {
  const std::string src = dir + "/" + name + "." + gfx + ".hip", out = dir + "/" + name + "." + gfx + ".co";
  if (Status s = write_file(src, source); !s.ok()) return s.error().message();
  const ProcessResult r = run_process({"clang-15", "-x", "hip", "--cuda-device-only", "--offload-arch=" + gfx,
                                       "--no-gpu-bundle-output", "-nogpulib", "-nogpuinc", "-O3", "-c", src, "-o", out});
  if (r.exit_code != 0) return "exit " + std::to_string(r.exit_code) + ": " + r.output + r.error;
  Expected<std::vector<uint8_t>> co = read_file_bytes(out);
  if (!co || co->size() < 4 || (*co)[0] != 0x7f || (*co)[1] != 'E') return "no ELF code object";
  return "";
}

struct CompileJob {
  std::string name, source, gfx;
};

// Every job on the machine's cores; failures come back in job order.
std::vector<std::string> compile_all(const std::vector<CompileJob>& jobs) {
  Expected<ScratchDir> dir = ScratchDir::create("tesserac-hip-emit-test");
  if (!dir) return {dir.error().message()};
  std::vector<std::string> results(jobs.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers(std::max(1u, std::min(4u, std::thread::hardware_concurrency())));
  for (std::thread& w : workers)
    w = std::thread([&] {
      for (size_t i; (i = next++) < jobs.size();)
        results[i] = compile(dir->path(), jobs[i].name, jobs[i].source, jobs[i].gfx);
    });
  for (std::thread& w : workers) w.join();
  return results;
}

TEST(HipEmit, EveryShippedSpecCompilesForEveryGfx) {
  if (clang15().empty()) GTEST_SKIP() << "clang-15 not found (packaging/install-deps.sh installs it)";
  std::string errors;
  const std::vector<KernelSpec> specs = shipped_specs(&errors);
  ASSERT_EQ(errors, "");
  std::vector<CompileJob> jobs;
  for (const KernelSpec& spec : specs)
    for (const HipArch& a : hip_archs()) jobs.push_back({spec.name, hip::emit_kernel(spec, a).source, a.name});
  EXPECT_EQ(jobs.size(), 19u * 4u);
  const std::vector<std::string> results = compile_all(jobs);
  for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(results[i], "") << jobs[i].name << " for " << jobs[i].gfx;
}

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
