// Every stride-th f32 bit pattern through a compiled vector function against
// its long double reference, in chunks over threads (what
// tools/vector_math_exhaustive runs per function).
#pragma once

#include <cstdint>

#include "tools/x86_vector_math_check.h"

namespace tsr::vector_math_check {

struct SweepOptions {
  uint64_t stride = 1;    // the inputs are the bit patterns 0, stride, 2 stride, ... below 2^32
  unsigned threads = 1;
};

struct SweepResult {
  uint64_t inputs = 0;
  double max_ulp = 0;          // f32_ulp_error's largest value (inf for a mismatch below)
  uint32_t worst_bits = 0;     // the lowest bit pattern with max_ulp
  uint64_t over_1_ulp = 0;
  uint64_t over_2_ulp = 0;
  uint64_t special_mismatches = 0;   // NaN for a number or the reverse, or inf where the reference rounds otherwise
  double seconds = 0;          // wall time
  double cpu_seconds = 0;      // of every thread (on a shared machine, what the sweep itself cost)
};

SweepResult sweep_f32(VectorFn fn, Reference ref, const SweepOptions& options);

}  // namespace tsr::vector_math_check
