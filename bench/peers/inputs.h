// Seeded uniform inputs in a kernel's storage dtype, shared by our side and
// the peers of a line (bf16 bytes are what oneDNN's bf16 matmul reads), and
// the check that our output and a peer's agree.
#pragma once

#include <cstdint>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr::bench {

std::vector<uint8_t> random_values(DType dtype, int64_t count, double lo, double hi, uint32_t seed);

// Largest |ours - peer| over the largest |peer|, both `count` elements in
// `dtype`: catches a peer computing another function (say, the other gelu).
double relative_difference(const std::vector<uint8_t>& ours, const std::vector<uint8_t>& peer, DType dtype,
                           int64_t count);

}  // namespace tsr::bench
