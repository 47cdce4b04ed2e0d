// Issue 9 item 2: the cuda target's generated source runs in the CPU emulator
// and passes the oracle (PASS_EMULATED, never PASS), and the emulator catches
// bugs injected into emitted source (item 5). Skips when clang is absent.
#include <gtest/gtest.h>

#include <chrono>

#include "spec/spec_loader.h"
#include "support/diagnostics.h"
#include "targets/cuda/cuda_emit_kernels.h"
#include "targets/cuda/emulator/emulator.h"
#include "targets/x86/x86_internal.h"

namespace tsr {
namespace {

class CudaEmulator : public ::testing::Test {
 protected:
  void SetUp() override {
    const ToolchainInfo info = x86::find_clang();
    if (!info.found) GTEST_SKIP() << "clang unavailable: " << info.why_unavailable;
  }
};

KernelSpec shipped(const std::string& name) {
  DiagnosticEngine diag;
  const std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs/" + name + ".yaml"}, diag);
  if (specs.size() != 1) throw std::runtime_error("cannot load " + name + ": " + diag.render());
  return specs[0];
}

cuda::emu::EmulatedReport emulate(const KernelSpec& spec, const std::string& source) {
  const auto start = std::chrono::steady_clock::now();
  cuda::emu::EmulatedReport r = cuda::emu::emulate_oracle(spec, "sm_80", source);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "[emulator] %s: %s in %.2f s (%d trials)%s%s\n", spec.name.c_str(), r.evidence.c_str(), s,
               r.oracle.trials, r.oracle.reason.empty() ? "" : ": ", r.oracle.reason.c_str());
  return r;
}

TEST_F(CudaEmulator, Smoke) {
  for (const char* name : {"ew_add_f32", "softmax_f32", "gemm_relu_bf16"}) {
    const KernelSpec spec = shipped(name);
    const cuda::emu::EmulatedReport r = emulate(spec, cuda::emit_kernel(spec).source);
    EXPECT_EQ(r.evidence, "PASS_EMULATED") << r.oracle.reason;
  }
}

}  // namespace
}  // namespace tsr
