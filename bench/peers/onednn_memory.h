// oneDNN's memory-bound primitives as peers (Debian libdnnl-dev 2.6, OpenMP
// runtime): eltwise, binary add, softmax, logsoftmax, layer normalization.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr::bench {

// One primitive over user buffers in `dtype` (storage f32, bf16 or f16),
// created once for the OpenMP thread count current at creation. A primitive
// oneDNN lacks or refuses is empty, with the reason in `why`.
class OnednnMemoryBound {
 public:
  // out = op(in[0]) over `count` elements (add: in[0] + in[1]).
  static std::unique_ptr<OnednnMemoryBound> elementwise(Op op, DType dtype, int64_t count,
                                                        const std::vector<const void*>& in, void* out,
                                                        std::string& why);
  // out = op(in) over the last axis of in[rows, cols], row-major, no affine.
  static std::unique_ptr<OnednnMemoryBound> rowwise(RowOp op, DType dtype, int64_t rows, int64_t cols, double eps,
                                                    const void* in, void* out, std::string& why);
  virtual ~OnednnMemoryBound() = default;
  virtual void run() = 0;
  virtual std::string implementation() const = 0;   // oneDNN's name, e.g. "jit:avx512_core"
};

}  // namespace tsr::bench
