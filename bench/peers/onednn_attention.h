// The unfused attention a user composes from oneDNN's primitives (Debian
// libdnnl-dev 2.6, OpenMP runtime): matmul Q·Kᵀ with the scale as the
// matmul's output scale, (causal) a 0 / -inf mask added in place by a binary
// add primitive, softmax over the keys in place, matmul P·V. The scores and
// P are in the inputs' dtype, as in an eager framework.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "spec/kernel_spec.h"

namespace tsr::bench {

// bhsd tensors viewed as the matmuls' batch: q[G, rows, D], k[G, Skv, D],
// v[G, Skv, Dv], o[G, rows, Dv], with G = batch x KV heads and rows = the
// query heads of one KV head times q_len (contiguous in bhsd).
struct OnednnAttentionShape {
  int64_t groups;      // batch x KV heads
  int64_t rows;        // query heads per KV head x q_len
  int64_t q_len, kv_len, head_dim, v_head_dim;
  bool causal;         // bottom-right aligned; needs rows == q_len
  float scale;
};

class OnednnAttention {
 public:
  // Created once for the OpenMP thread count current at creation; empty,
  // with the reason in `why`, where oneDNN refuses a primitive.
  static std::unique_ptr<OnednnAttention> make(const OnednnAttentionShape& shape, DType dtype, const void* q,
                                               const void* k, const void* v, void* o, std::string& why);
  virtual ~OnednnAttention() = default;
  virtual void run() = 0;
  virtual std::string implementation() const = 0;   // oneDNN's name of each of the three primitives
};

}  // namespace tsr::bench
