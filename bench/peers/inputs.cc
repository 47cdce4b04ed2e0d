#include "inputs.h"

#include <random>

#include "spec/half.h"

namespace tsr::bench {

std::vector<uint8_t> random_values(DType dtype, int64_t count, double lo, double hi, uint32_t seed) {
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * dtype_size(dtype));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < count; ++i) store_element(bytes.data(), dtype, i, dist(rng));
  return bytes;
}

}  // namespace tsr::bench
