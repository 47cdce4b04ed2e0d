#include "inputs.h"

#include <algorithm>
#include <cmath>
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

double relative_difference(const std::vector<uint8_t>& ours, const std::vector<uint8_t>& peer, DType dtype,
                           int64_t count) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double p = load_element(peer.data(), dtype, i);
    diff = std::max(diff, std::fabs(load_element(ours.data(), dtype, i) - p));
    scale = std::max(scale, std::fabs(p));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace tsr::bench
