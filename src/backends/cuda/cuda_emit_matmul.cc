// Matmul family for the cuda target (PTX ISA: ldmatrix, mma.sync.m16n8k16,
// cp.async; CUDA C++ Programming Guide: shared-memory tiling).
// f16/bf16: 128x128x32 block tiles, 8 warps of 64x32, tensor-core mma.sync with
// f32 accumulators, double-buffered cp.async loads (scalar loads when a
// contiguous extent is not a multiple of 8 or a base is not 16-byte aligned).
// f32: the shared FMA tile (gpu/gpu_emit_matmul.cc).
// The epilogue runs on the f32 accumulators in registers before the one store.
#include <string>

#include "cuda/cuda_emit_kernels.h"
#include "cuda/cuda_prelude.h"

namespace tsr::cuda {

namespace {

// ---- f16/bf16: tensor cores ---------------------------------------------------

// Loads one BMxBK (or BKxBN) operand tile into shared memory. `rows x cols` is
// the tile as stored (cols contiguous in both global and shared memory).
std::string tile_loader(const std::string& name, int rows, int cols, int stride) {
  const int chunks_per_row = cols / 8;
  const int chunks = rows * chunks_per_row;
  std::string s = "__device__ __forceinline__ void " + name +
                  "(unsigned short* smem, const tsr_t* __restrict__ g, long long r0, long long c0,\n"
                  "    long long R, long long C, bool vec) {\n";
  s += "  // Tile " + std::to_string(rows) + "x" + std::to_string(cols) + ", shared row stride " +
       std::to_string(stride) + " (+8 halves: conflict-free ldmatrix).\n";
  s += "#pragma unroll\n  for (int t = 0; t < " + std::to_string(chunks / 256) + "; ++t) {\n";
  s += "    const int chunk = threadIdx.x + t * 256;\n";
  s += "    const int r = chunk / " + std::to_string(chunks_per_row) + ", c = (chunk % " +
       std::to_string(chunks_per_row) + ") * 8;\n";
  s += "    const long long gr = r0 + r, gc = c0 + c;\n";
  s += "    unsigned short* dst = smem + r * " + std::to_string(stride) + " + c;\n";
  s += "    if (vec) {\n";
  s += "      const bool in = gr < R && gc < C;   // C % 8 == 0: a chunk is all in or all out\n";
  s += "      tsr_cp_async16(dst, in ? (const void*)(g + gr * C + gc) : (const void*)g, in ? 16 : 0);\n";
  s += "    } else {\n";
  s += "#pragma unroll\n      for (int j = 0; j < 8; ++j)\n";
  s += "        dst[j] = (gr < R && gc + j < C) ? tsr_ldg(g, gr * C + gc + j) : (unsigned short)0;\n";
  s += "    }\n  }\n}\n\n";
  return s;
}

std::string mma_kernel(const KernelSpec& spec) {
  const MatmulSpec& m = spec.matmul();
  const bool a_row = m.a == Layout::row, b_row = m.b == Layout::row;
  // Shared layouts follow the global contiguous axis: A row -> [m][k], A col ->
  // [k][m]; B col -> [n][k], B row -> [k][n]. ldmatrix(.trans) builds fragments.
  const int a_rows = a_row ? 128 : 32, a_cols = a_row ? 32 : 128;
  const int b_rows = b_row ? 32 : 128, b_cols = b_row ? 128 : 32;
  const int a_stride = a_cols + 8, b_stride = b_cols + 8;
  std::string s;
  s += tile_loader("tsr_load_a", a_rows, a_cols, a_stride);
  s += tile_loader("tsr_load_b", b_rows, b_cols, b_stride);
  s += gpu::kernel_signature(spec, 256) + " {\n" + gpu::matmul_extents(spec);
  s += "  __shared__ __align__(16) unsigned short As[2][" + std::to_string(a_rows * a_stride) + "];\n";
  s += "  __shared__ __align__(16) unsigned short Bs[2][" + std::to_string(b_rows * b_stride) + "];\n";
  s += R"(  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3;   // warp tile: rows wm*64.., cols wn*32..
  const long long m0 = (long long)blockIdx.y * 128, n0 = (long long)blockIdx.x * 128;
)";
  // Global extents of each operand as stored (rows R, contiguous C).
  const std::string a_rc = a_row ? "M, K" : "K, M";
  const std::string b_rc = b_row ? "K, N" : "N, K";
  const std::string a_origin = a_row ? "m0, k0" : "k0, m0";
  const std::string b_origin = b_row ? "k0, n0" : "n0, k0";
  s += std::string("  const bool vec_a = tsr_aligned16(p_a) && (") + (a_row ? "K" : "M") + " % 8) == 0;\n";
  s += std::string("  const bool vec_b = tsr_aligned16(p_b) && (") + (b_row ? "N" : "K") + " % 8) == 0;\n";
  s += R"(  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;
  const long long ktiles = (K + 31) / 32;
  if (ktiles > 0) {
    const long long k0 = 0;
)";
  s += "    tsr_load_a(As[0], p_a, " + a_origin + ", " + a_rc + ", vec_a);\n";
  s += "    tsr_load_b(Bs[0], p_b, " + b_origin + ", " + b_rc + ", vec_b);\n";
  s += R"(  }
  tsr_cp_async_commit();
  for (long long kt = 0; kt < ktiles; ++kt) {
    const int st = (int)(kt & 1);
    if (kt + 1 < ktiles) {
      const long long k0 = (kt + 1) * 32;
)";
  s += "      tsr_load_a(As[st ^ 1], p_a, " + a_origin + ", " + a_rc + ", vec_a);\n";
  s += "      tsr_load_b(Bs[st ^ 1], p_b, " + b_origin + ", " + b_rc + ", vec_b);\n";
  s += R"(    }
    tsr_cp_async_commit();
    tsr_cp_async_wait1();   // tile kt has landed; tile kt+1 may still be in flight
    tsr_syncthreads();
    const unsigned short* as = As[st];
    const unsigned short* bs = Bs[st];
#pragma unroll
    for (int kk = 0; kk < 32; kk += 16) {
      unsigned af[4][4], bf[4][2];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int mb = wm * 64 + mt * 16;
)";
  if (a_row)
    s += "        tsr_ldmatrix_x4(af[mt], as + (mb + (lane & 7) + ((lane >> 3) & 1) * 8) * " +
         std::to_string(a_stride) + " + kk + (lane >> 4) * 8);\n";
  else
    s += "        tsr_ldmatrix_x4_trans(af[mt], as + (kk + (lane & 7) + (lane >> 4) * 8) * " +
         std::to_string(a_stride) + " + mb + ((lane >> 3) & 1) * 8);\n";
  s += R"(      }
#pragma unroll
      for (int p = 0; p < 2; ++p) {
        const int nb = wn * 32 + p * 16;
        unsigned r[4];
)";
  if (b_row)
    s += "        tsr_ldmatrix_x4_trans(r, bs + (kk + (lane & 7) + ((lane >> 3) & 1) * 8) * " +
         std::to_string(b_stride) + " + nb + (lane >> 4) * 8);\n";
  else
    s += "        tsr_ldmatrix_x4(r, bs + (nb + (lane & 7) + (lane >> 4) * 8) * " + std::to_string(b_stride) +
         " + kk + ((lane >> 3) & 1) * 8);\n";
  s += R"(        bf[2 * p][0] = r[0]; bf[2 * p][1] = r[1];
        bf[2 * p + 1][0] = r[2]; bf[2 * p + 1][1] = r[3];
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) tsr_mma_m16n8k16(acc[mt][nt], af[mt], bf[nt]);
    }
    tsr_syncthreads();   // every warp is done with stage st before it is refilled
  }
  // Accumulator fragment: rows lane/4 and lane/4 + 8, columns 2*(lane%4) + {0, 1}.
  const bool pair_ok = (N % 2) == 0 && ((reinterpret_cast<unsigned long long>(p_c) & 3ull) == 0);
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
#pragma unroll
    for (int nt = 0; nt < 4; ++nt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const long long row = m0 + wm * 64 + mt * 16 + (lane >> 2) + h * 8;
        const long long col = n0 + wn * 32 + nt * 8 + (lane & 3) * 2;
        if (row >= M || col >= N) continue;
)";
  const std::string args = gpu::matmul_epilogue_args(m);
  s += "        const float v0 = tsr_epilogue(acc[mt][nt][2 * h], row, col, N" + args + ");\n";
  s += R"(        if (col + 1 < N) {
)";
  s += "          const float v1 = tsr_epilogue(acc[mt][nt][2 * h + 1], row, col + 1, N" + args + ");\n";
  s += R"(          if (pair_ok) {
            tsr_stg_u32(p_c + row * N + col, (unsigned)tsr_from_f32(v0) | ((unsigned)tsr_from_f32(v1) << 16));
          } else {
            tsr_st(p_c, row * N + col, v0);
            tsr_st(p_c, row * N + col + 1, v1);
          }
        } else {
          tsr_st(p_c, row * N + col, v0);
        }
      }
}
)";
  return s;
}

}  // namespace

gpu::EmittedKernel emit_matmul(const KernelSpec& spec, const gpu::FmaTiling& tiling) {
  const MatmulSpec& m = spec.matmul();
  const bool tensor_cores = spec.dtype != DType::f32;
  std::string s = prelude(spec);
  s += gpu::matmul_epilogue_function(spec);
  s += tensor_cores ? mma_kernel(spec) : gpu::fma_tile_kernel(spec, tiling);

  gpu::EmittedKernel k{std::move(s), {}};
  k.plan.block_x = 256;
  k.plan.grid_x = gpu::grid_cdiv(m.n, tensor_cores ? 128 : tiling.bn);
  k.plan.grid_y = gpu::grid_cdiv(m.m, tensor_cores ? 128 : tiling.bm);
  return k;
}

}  // namespace tsr::cuda
