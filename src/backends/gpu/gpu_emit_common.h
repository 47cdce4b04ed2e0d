// What the CUDA and HIP C++ emitters share (CUDA C++ Programming Guide; the
// HIP dialect is the same language here): launch plans, the dialect, the
// storage dtype's loads and stores, reductions over a wave, the kernel
// signature and expressions. The emitted source includes no toolkit header,
// so NVRTC and hipcc need no include path.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "spec/kernel_spec.h"

namespace tsr::gpu {

// Launch geometry recorded in Artifact.metadata (docs/targets-cuda.md).
// Each grid component is `INT`, `NAME` or `cdiv(INT_OR_NAME,INT)`.
struct LaunchPlan {
  int block_x = 1, block_y = 1, block_z = 1;
  std::string grid_x = "1", grid_y = "1", grid_z = "1";
  int64_t shared_bytes = 0;   // dynamic shared memory
  std::string block_text() const;
  std::string grid_text() const;
  // <kind>.block, <kind>.grid and <kind>.shared_bytes (kind "cuda" or "hip"),
  // as the runner and emulator read them.
  void write_metadata(std::map<std::string, std::string>& metadata, const std::string& kind = "cuda") const;
};

// What differs between the CUDA and HIP texts of the family emitters that both
// targets share (elementwise, rowwise, the FMA-tile matmul): the prelude that
// defines the primitives, and the lanes a reduction spans (a CUDA warp is 32,
// an AMD wavefront 64 on CDNA and 32 on RDNA).
struct GpuDialect {
  std::string prelude;
  int wave_size = 32;
};

// Deterministic source plus the geometry it was written for.
struct EmittedKernel {
  std::string source;
  LaunchPlan plan;
};

// The storage dtype's tsr_t, conversions (through the primitives
// tsr_cvt_*), scalar and 16-byte vector loads and stores.
std::string storage_support(DType storage);

// The block reductions over `wave_size`-lane shuffles (tsr_warp_sum,
// tsr_block_sum): for 32 lanes the CUDA text.
std::string block_reductions(int wave_size);

// Wave-size arithmetic in emitted text: W/2 (the first butterfly distance),
// W-1 (lane mask) and log2 W (the wave index shift).
struct WaveText {
  std::string half, mask, shift;
};
WaveText wave_text(int wave_size);

// "p_<name>" for buffers (the family's fixed ABI names); scalars are
// c_scalar_param(index) (src/backends/target/c_expr.h), so spec names never reach the code.
std::string buffer_param(const std::string& abi_name);

// The full `extern "C" __global__` signature in ABI order.
std::string kernel_signature(const KernelSpec& spec, int max_threads);

// A Dim as a `long long` expression of the kernel parameters.
std::string dim_expr(const KernelSpec& spec, const Dim& d);

// Grid component for cdiv(d, per_block) in the metadata grammar.
std::string grid_cdiv(const Dim& d, int64_t per_block);

// f32 expressions of the closed op table on f32 operands.
std::string unary_expr(Op op, const std::string& v);
std::string binary_expr(Op op, const std::string& a, const std::string& b);

// A float literal that round-trips the value through f32.
std::string float_literal(double v);

// Elements per 16-byte vector of the storage dtype.
int vector_width(DType t);

// tsr_ldg, tsr_stg, tsr_ldg_v16, tsr_stg_v16, tsr_stg_u32: plain C++ that
// any dialect compiles; each dialect writes them in its primitive block, so
// the emulator's checked twins serve both.
const char* global_memory_primitives();

}  // namespace tsr::gpu
