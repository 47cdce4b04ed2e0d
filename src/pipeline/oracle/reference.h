// Reference implementations used by the oracle: double accumulation, exact
// rounding to the storage dtype at the points where the kernel stores.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

double apply_unary(Op op, double v);
double apply_binary(Op op, double a, double b);

// One checked output element: flat index into the output buffer and the
// reference value rounded to the storage dtype.
struct ReferenceValue {
  int64_t index;
  double value;
  int output = 0;   // which output buffer, in ABI order (attention: 0 o, 1 lse)
};

// `inputs` holds the input buffers in ABI order (storage-rounded values).
// Large problems are checked on `max_rows` sampled output rows (chosen by
// `sample_seed`); every element of a sampled row is checked.
std::vector<ReferenceValue> reference_output(const KernelSpec& spec, const std::vector<std::vector<double>>& inputs,
                                             const std::map<std::string, int64_t>& scalars, uint64_t sample_seed);

int64_t dim_value(const Dim& d, const std::map<std::string, int64_t>& scalars);

// The output rows a reference computes: all of them, or a seeded sample
// (first, last and random rows) when rows * work_per_row is large.
std::vector<int64_t> rows_to_check(int64_t rows, double work_per_row, uint64_t seed);

// Whether query row i may attend key j (causal and window, bottom-right aligned).
bool attention_allows(const AttentionSpec& a, int64_t i, int64_t j, int64_t q_len, int64_t kv_len);
// The attention family's reference (attention_reference.cc).
std::vector<ReferenceValue> attention_reference(const KernelSpec& spec, const std::vector<std::vector<double>>& inputs,
                                                const std::map<std::string, int64_t>& scalars, uint64_t sample_seed);

}  // namespace tsr
