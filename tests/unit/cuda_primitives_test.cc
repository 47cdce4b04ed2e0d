// Issue 9 item 1: every hardware-specific operation of the emitted CUDA C++ is
// a named primitive inside the one `#ifndef TSR_EMULATED` block; the rest of
// each emitted file has no inline assembly and no raw CUDA intrinsic that the
// emulator would have to guess at.
#include <gtest/gtest.h>

#include <regex>

#include "driver/spec_loading.h"
#include "support/diagnostics.h"
#include "cuda/cuda_emit_kernels.h"

namespace tsr {
namespace {

std::vector<KernelSpec> shipped_cuda_specs() {
  DiagnosticEngine diag;
  std::vector<KernelSpec> specs = load_specs({TSR_SOURCE_DIR "/specs"}, diag);
  EXPECT_FALSE(diag.has_errors()) << diag.render();
  return specs;
}

TEST(CudaPrimitives, InlineAssemblyOnlyInsideThePrimitiveBlock) {
  const std::vector<KernelSpec> specs = shipped_cuda_specs();
  ASSERT_GE(specs.size(), 19u);
  int tensor_core_kernels = 0;
  for (const KernelSpec& spec : specs) {
    const std::string src = cuda::emit_kernel(spec).source;
    const size_t open = src.find("#ifndef TSR_EMULATED\n");
    const size_t close = src.find("#endif  // TSR_EMULATED\n");
    ASSERT_NE(open, std::string::npos) << spec.name;
    ASSERT_NE(close, std::string::npos) << spec.name;
    ASSERT_LT(open, close) << spec.name;
    EXPECT_EQ(src.find("#ifndef TSR_EMULATED", open + 1), std::string::npos) << spec.name;
    const std::string outside = src.substr(0, open) + src.substr(close);
    for (const char* hardware : {"asm", "__shfl", "__syncthreads", "reinterpret_cast<tsr_v16", "cvta"})
      EXPECT_EQ(outside.find(hardware), std::string::npos) << spec.name << ": " << hardware;
    // Every global access goes through a primitive (so the emulator's memcheck
    // sees it): no buffer parameter, row pointer or tile source is indexed raw.
    static const std::regex raw_global(R"((\bp_\w+|\bx_row|\by_row|\bg)\s*\[)");
    EXPECT_FALSE(std::regex_search(outside, raw_global)) << spec.name;
    EXPECT_TRUE(std::regex_search(std::string("tsr_t v = p_a [i];"), raw_global));   // the pattern itself bites
    const std::string inside = src.substr(open, close - open);
    if (inside.find("mma.sync.aligned.m16n8k16.row.col.f32.") != std::string::npos) {
      ++tensor_core_kernels;
      EXPECT_NE(outside.find("tsr_mma_m16n8k16(acc[mt][nt], af[mt], bf[nt]);"), std::string::npos) << spec.name;
      EXPECT_NE(outside.find("tsr_cp_async_wait1();"), std::string::npos) << spec.name;
    }
  }
  EXPECT_EQ(tensor_core_kernels, 3);   // the shipped bf16/f16 matmuls
}

}  // namespace
}  // namespace tsr
