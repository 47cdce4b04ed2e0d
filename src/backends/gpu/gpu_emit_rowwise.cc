// Rowwise family for the cuda target (CUDA C++ Programming Guide: warp shuffles,
// shared-memory block reductions). One block per row. The reduction reads the
// row once (softmax keeps an online max/sum pair, layernorm shifted sums); the
// second sweep writes y and re-reads x from L1/L2.
#include <string>

#include "gpu/gpu_emit_families.h"

namespace tsr::gpu {

namespace {

constexpr int kBlock = 256;

struct RowCode {
  std::string state;     // per-thread accumulator declarations
  std::string update;    // consumes float `x`
  std::string reduce;    // block-wide combination, defines the row statistics
  std::string output;    // f32 `y` from `x` and column `c`
};

RowCode row_code(const RowwiseSpec& r, int wave_size) {
  const WaveText wt = wave_text(wave_size);
  const std::string eps = r.eps ? float_literal(*r.eps) : "0.0f";
  const std::string w = r.affine ? " * tsr_ld(" + buffer_param("weight") + ", c)" : "";
  RowCode code;
  switch (r.op) {
    case RowOp::softmax:
    case RowOp::log_softmax:
      // Online softmax: a running (max, sum of exp(x - max)) pair per thread.
      code.state = "  float m = -__int_as_float(0x7f800000), l = 0.0f;\n";
      code.update =
          "if (x > m) { l = l * expf(m - x) + 1.0f; m = x; } else { l += expf(x - m); }";
      code.reduce =
          "  __shared__ float red_m[32];\n"
          "  float row_max = m;\n"
          "#pragma unroll\n"
          "  for (int o = " + wt.half +
          "; o > 0; o >>= 1) row_max = fmaxf(row_max, tsr_shfl_xor_sync(0xffffffffu, row_max, o));\n"
          "  if ((threadIdx.x & " + wt.mask + ") == 0) red_m[threadIdx.x >> " + wt.shift + "] = row_max;\n"
          "  tsr_syncthreads();\n"
          "  row_max = red_m[0];\n"
          "  for (int i = 1; i < (int)(blockDim.x >> " + wt.shift + "); ++i) row_max = fmaxf(row_max, red_m[i]);\n"
          "  const float mine = (l == 0.0f) ? 0.0f : l * expf(m - row_max);\n"
          "  const float row_sum = tsr_block_sum(mine, red);\n";
      code.output = r.op == RowOp::softmax ? "expf(x - row_max) / row_sum" : "x - row_max - logf(row_sum)";
      break;
    case RowOp::rmsnorm:
      code.state = "  float ss = 0.0f;\n";
      code.update = "ss += x * x;";
      code.reduce =
          "  const float row_ss = tsr_block_sum(ss, red);\n"
          "  const float rstd = 1.0f / sqrtf(row_ss / (float)cols + " + eps + ");\n";
      code.output = "x * rstd" + w;
      break;
    case RowOp::layernorm:
      // Sums shifted by the row's first element keep var = E[d^2] - E[d]^2 stable.
      code.state = "  const float shift = cols > 0 ? tsr_ld(x_row, 0) : 0.0f;\n  float s1 = 0.0f, s2 = 0.0f;\n";
      code.update = "{ const float d = x - shift; s1 += d; s2 += d * d; }";
      code.reduce =
          "  const float row_s1 = tsr_block_sum(s1, red);\n"
          "  const float row_s2 = tsr_block_sum(s2, red);\n"
          "  const float mean_d = row_s1 / (float)cols;\n"
          "  const float var = fmaxf(row_s2 / (float)cols - mean_d * mean_d, 0.0f);\n"
          "  const float mean = shift + mean_d;\n"
          "  const float rstd = 1.0f / sqrtf(var + " + eps + ");\n";
      code.output = "(x - mean) * rstd" + w +
                    (r.affine ? " + tsr_ld(" + buffer_param("bias") + ", c)" : std::string());
      break;
  }
  return code;
}

}  // namespace

EmittedKernel emit_rowwise(const KernelSpec& spec, const GpuDialect& dialect) {
  const RowwiseSpec& r = spec.rowwise();
  const RowCode code = row_code(r, dialect.wave_size);
  const std::string x = buffer_param("x"), y = buffer_param("y");
  std::string aligned = "tsr_aligned16(" + x + ") && tsr_aligned16(" + y + ")";
  if (r.affine) {
    aligned += " && tsr_aligned16(" + buffer_param("weight") + ")";
    if (r.op == RowOp::layernorm) aligned += " && tsr_aligned16(" + buffer_param("bias") + ")";
  }

  std::string s = dialect.prelude;
  s += "// Row statistics per op: " + std::string(row_op_name(r.op)) + ".\n";
  s += kernel_signature(spec, kBlock) + " {\n";
  s += "  const long long rows = " + dim_expr(spec, r.rows) + ", cols = " + dim_expr(spec, r.cols) + ";\n";
  s += "  const long long row = blockIdx.x;\n";
  s += "  if (row >= rows || cols == 0) return;   // uniform per block: no barrier is skipped by some threads only\n";
  s += "  const tsr_t* x_row = " + x + " + row * cols;\n";
  s += "  tsr_t* y_row = " + y + " + row * cols;\n";
  s += "  __shared__ float red[32];\n";
  // Vector sweeps need every row start 16-byte aligned: aligned bases and
  // cols a multiple of the vector width.
  s += "  const bool vec = (cols % TSR_VEC) == 0 && " + aligned + ";\n";
  s += "  const long long nvec = vec ? cols / TSR_VEC : 0;\n";
  s += code.state;
  s += "  for (long long vi = threadIdx.x; vi < nvec; vi += blockDim.x) {\n";
  s += "    float xs[TSR_VEC]; tsr_ld_vec(x_row, vi, xs);\n";
  s += "#pragma unroll\n    for (int j = 0; j < TSR_VEC; ++j) { const float x = xs[j]; " + code.update + " }\n";
  s += "  }\n";
  s += "  for (long long c = nvec * TSR_VEC + threadIdx.x; c < cols; c += blockDim.x) {\n";
  s += "    const float x = tsr_ld(x_row, c); " + code.update + "\n  }\n";
  s += code.reduce;
  s += "  for (long long vi = threadIdx.x; vi < nvec; vi += blockDim.x) {\n";
  s += "    float xs[TSR_VEC], ys[TSR_VEC]; tsr_ld_vec(x_row, vi, xs);\n";
  s += "#pragma unroll\n    for (int j = 0; j < TSR_VEC; ++j) {\n";
  s += "      const long long c = vi * TSR_VEC + j; const float x = xs[j]; (void)c;\n";
  s += "      ys[j] = " + code.output + ";\n    }\n";
  s += "    tsr_st_vec(y_row, vi, ys);\n  }\n";
  s += "  for (long long c = nvec * TSR_VEC + threadIdx.x; c < cols; c += blockDim.x) {\n";
  s += "    const float x = tsr_ld(x_row, c);\n";
  s += "    tsr_st(y_row, c, " + code.output + ");\n  }\n}\n";

  EmittedKernel k{std::move(s), {}};
  k.plan.block_x = kBlock;
  k.plan.grid_x = grid_cdiv(r.rows, 1);
  return k;
}

}  // namespace tsr::gpu
