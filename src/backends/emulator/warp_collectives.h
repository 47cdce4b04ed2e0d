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
// The widest wavefront emulated (AMD CDNA wave64); RDNA runs wave32.
constexpr int kMaxWaveSize = 64;
using WaveFloats = std::array<float, kMaxWaveSize>;

// __shfl_xor_sync over `wave` lanes: lane l receives v[l ^ lane_mask] (its
// own value when that lane is outside the wave).
WaveFloats shfl_xor(const WaveFloats& v, int lane_mask, int wave);

// ds_bpermute_b32 (AMD CDNA2/RDNA ISA, "LDS instructions"): lane l receives
// data[(addr[l] / 4) mod wave], the lane its byte address names.
using WaveInts = std::array<int32_t, kMaxWaveSize>;
WaveInts ds_bpermute(const WaveInts& addr, const WaveInts& data, int wave);

// v_mfma_f32_32x32x8{f16,bf16_1k} with cbsz = abid = blgp = 0 (AMD Instinct
// MI200 ISA, "Matrix fused multiply-add"; AMD matrix instruction calculator),
// over the 64 lanes of a wavefront: lane l holds A row l%32, k 4(l/32)+j and B
// column l%32, k 4(l/32)+j (j = 0..3); C/D register r is row 8(r/4) + 4(l/32)
// + r%4, column l%32. Products are exact; the 8 products and C are summed in
// double and rounded to f32 once.
struct MfmaLane {
  std::array<uint16_t, 4> a, b;
  std::array<float, 16> d;   // C in, D out
};
void mfma_32x32x8(std::array<MfmaLane, kMaxWaveSize>& lanes, bool bf16);

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
