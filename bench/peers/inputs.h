// Seeded uniform inputs in a kernel's storage dtype, shared by our side and
// the peers of a line (bf16 bytes are what oneDNN's bf16 matmul reads).
#pragma once

#include <cstdint>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr::bench {

std::vector<uint8_t> random_values(DType dtype, int64_t count, double lo, double hi, uint32_t seed);

}  // namespace tsr::bench
