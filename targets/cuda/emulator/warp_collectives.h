// The data movement of the warp-collective instructions, as pure functions of
// every lane's operands (PTX ISA 8.x, "Warp-level matrix load instruction:
// ldmatrix" and "Matrix Fragments for mma.m16n8k16 with floating point type";
// CUDA C++ Programming Guide, "Warp Shuffle Functions"). The scheduler gathers
// the operands once all lanes have arrived and scatters the results.
#pragma once

#include <array>
#include <cstdint>

namespace tsr::cuda::emu {

constexpr int kWarpSize = 32;

// __shfl_xor_sync: lane l receives v[l ^ lane_mask] (its own value when that
// lane is outside the warp width).
std::array<float, kWarpSize> shfl_xor(const std::array<float, kWarpSize>& v, int lane_mask);

// ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16: lanes 8i..8i+7 give the
// row addresses of matrix i; every lane receives one 32-bit register per matrix.
using LdmatrixRows = std::array<const uint16_t*, kWarpSize>;
std::array<std::array<uint32_t, 4>, kWarpSize> ldmatrix_x4(const LdmatrixRows& rows, bool trans);

// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 with D = C:
// the 16x16 A fragment (4 registers per lane), the 16x8 B fragment (2), the f32
// accumulators (4). Products are exact; the sum of 16 products and C is formed
// in double and rounded to f32 once (hardware's internal order is not modelled).
struct MmaLane {
  std::array<uint32_t, 4> a;
  std::array<uint32_t, 2> b;
  std::array<float, 4> d;
};
void mma_m16n8k16(std::array<MmaLane, kWarpSize>& lanes, bool bf16);

}  // namespace tsr::cuda::emu
