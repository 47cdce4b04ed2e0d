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
};

// `inputs` holds the input buffers in ABI order (storage-rounded values).
// Large problems are checked on `max_rows` sampled output rows (chosen by
// `sample_seed`); every element of a sampled row is checked.
std::vector<ReferenceValue> reference_output(const KernelSpec& spec, const std::vector<std::vector<double>>& inputs,
                                             const std::map<std::string, int64_t>& scalars, uint64_t sample_seed);

int64_t dim_value(const Dim& d, const std::map<std::string, int64_t>& scalars);

}  // namespace tsr
