// The lines of bench/x86_vs_peers (docs/performance.md, "x86").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "target/target.h"

namespace tsr::bench {

// "1 thread" or "all cores": every side of a line runs with the same count.
struct Mode {
  std::string label;
  int threads;
};
void enter(const Mode& mode);   // our executor, openblas_set_num_threads, omp_set_num_threads

struct Bench {
  const Target& target;
  std::vector<Mode> modes;
  std::string only;   // run only the lines whose name contains this (empty: all)
  bool wants(const std::string& what) const { return only.empty() || what.find(only) != std::string::npos; }
};

// Our matmul C[m, n] = A[m, k] * B[k, n], static shape, f32 accumulation.
KernelSpec matmul_spec(DType dtype, int64_t m, int64_t n, int64_t k);

// f32 (OpenBLAS, oneDNN) or bf16 (oneDNN bf16 x bf16 -> f32) matmul, row-major,
// in each mode, against `goal` (0: none, `why_none` printed).
void matmul_line(const Bench& b, const std::string& arch, DType dtype, int64_t m, int64_t n, int64_t k, int repeats,
                 double goal, const std::string& why_none);
// All-core speed / 1-thread speed of ours and each peer, interleaved in one loop.
void scaling_line(const Bench& b, const std::string& arch, int64_t n, int cpus);

// One elementwise op over 16 Mi elements against the bandwidth loop over the same bytes and oneDNN.
void elementwise_line(const Bench& b, const std::string& arch, DType dtype, const std::vector<Op>& ops);
// One rowwise op on 4096 x 4096 against the bandwidth loop over the same bytes and oneDNN.
void rowwise_line(const Bench& b, const std::string& arch, DType dtype, RowOp op);

// Attention, layout bhsd, batch 1, D = Dv, against the unfused oneDNN
// composition, our matmul at the same FLOPs and (decode) the K + V read.
struct AttentionShape {
  int64_t q_heads, kv_heads, q_len, kv_len, head_dim;
  bool causal;
};
void attention_line(const Bench& b, const std::string& arch, DType dtype, const AttentionShape& shape, int repeats);

}  // namespace tsr::bench
