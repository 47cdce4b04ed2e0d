// ds_bpermute and MFMA: AMD CDNA2 ISA (warp_collectives.h).
// Fragment layouts from the PTX ISA 8.x: "Warp-level matrix load instruction:
// ldmatrix" (lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 of each 8x8
// matrix; .trans delivers the transpose) and "Matrix Fragments for
// mma.m16n8k16 with floating point type" (groupID = l/4, threadID_in_group = l%4).
#include "emulator/warp_collectives.h"

#include "spec/half.h"

namespace tsr::cuda::emu {

WaveFloats shfl_xor(const WaveFloats& v, int lane_mask, int wave) {
  WaveFloats out{};
  for (int l = 0; l < wave; ++l) {
    const int src = l ^ lane_mask;
    out[l] = src >= 0 && src < wave ? v[src] : v[l];
  }
  return out;
}

WaveInts ds_bpermute(const WaveInts& addr, const WaveInts& data, int wave) {
  WaveInts out{};
  for (int l = 0; l < wave; ++l) out[l] = data[(static_cast<uint32_t>(addr[l]) >> 2) & static_cast<uint32_t>(wave - 1)];
  return out;
}

std::array<std::array<uint32_t, 4>, kWarpSize> ldmatrix_x4(const LdmatrixRows& rows, bool trans) {
  std::array<std::array<uint32_t, 4>, kWarpSize> out{};
  for (int l = 0; l < kWarpSize; ++l) {
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i) {
      // Element (r, c) of matrix i is column c of the row lane 8i+r addressed.
      auto at = [&](int r, int c) { return static_cast<uint32_t>(rows[8 * i + r][c]); };
      const uint32_t lo = trans ? at(2 * t, g) : at(g, 2 * t);
      const uint32_t hi = trans ? at(2 * t + 1, g) : at(g, 2 * t + 1);
      out[l][i] = lo | (hi << 16);
    }
  }
  return out;
}

namespace {

double element(uint16_t h, bool bf16) { return bf16 ? bf16_to_f32(h) : f16_to_f32(h); }

double element(uint32_t reg, int half, bool bf16) {
  return element(static_cast<uint16_t>(half ? reg >> 16 : reg & 0xffffu), bf16);
}

}  // namespace

void mma_m16n8k16(std::array<MmaLane, kWarpSize>& lanes, bool bf16) {
  double A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < kWarpSize; ++l) {
    const int g = l / 4, t = l % 4;
    const MmaLane& x = lanes[l];
    for (int h = 0; h < 2; ++h) {
      // a0..a7: rows g (a0,a1,a4,a5) and g+8 (a2,a3,a6,a7); columns 2t+h, +8 for a4..a7.
      A[g][2 * t + h] = element(x.a[0], h, bf16);
      A[g + 8][2 * t + h] = element(x.a[1], h, bf16);
      A[g][2 * t + 8 + h] = element(x.a[2], h, bf16);
      A[g + 8][2 * t + 8 + h] = element(x.a[3], h, bf16);
      // b0..b3: rows (k) 2t+h and 2t+8+h, column (n) g.
      B[2 * t + h][g] = element(x.b[0], h, bf16);
      B[2 * t + 8 + h][g] = element(x.b[1], h, bf16);
      // c0..c3: rows g (c0,c1) and g+8 (c2,c3), columns 2t+h.
      C[g][2 * t + h] = x.d[h];
      C[g + 8][2 * t + h] = x.d[2 + h];
    }
  }
  for (int l = 0; l < kWarpSize; ++l) {
    const int g = l / 4, t = l % 4;
    for (int r = 0; r < 4; ++r) {
      const int row = g + (r >= 2 ? 8 : 0), col = 2 * t + (r & 1);
      double sum = C[row][col];
      for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
      lanes[l].d[r] = static_cast<float>(sum);
    }
  }
}

void mfma_32x32x8(std::array<MfmaLane, kMaxWaveSize>& lanes, bool bf16) {
  double A[32][8], B[8][32], C[32][32];
  auto c_row = [](int l, int r) { return 8 * (r / 4) + 4 * (l / 32) + r % 4; };
  for (int l = 0; l < kMaxWaveSize; ++l) {
    for (int j = 0; j < 4; ++j) {
      A[l % 32][4 * (l / 32) + j] = element(lanes[l].a[j], bf16);
      B[4 * (l / 32) + j][l % 32] = element(lanes[l].b[j], bf16);
    }
    for (int r = 0; r < 16; ++r) C[c_row(l, r)][l % 32] = lanes[l].d[r];
  }
  for (int l = 0; l < kMaxWaveSize; ++l)
    for (int r = 0; r < 16; ++r) {
      const int row = c_row(l, r), col = l % 32;
      double sum = C[row][col];
      for (int k = 0; k < 8; ++k) sum += A[row][k] * B[k][col];
      lanes[l].d[r] = static_cast<float>(sum);
    }
}

}  // namespace tsr::cuda::emu
