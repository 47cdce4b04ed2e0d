// Per-element comparison: |out - ref| <= atol + rtol * |ref|. Non-finite
// reference values must be matched exactly (same infinity, or NaN for NaN).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oracle/budget.h"
#include "oracle/reference.h"

namespace tsr {

struct Comparison {
  bool pass = true;
  int64_t checked = 0;
  int64_t failures = 0;
  double max_abs_err = 0.0;
  double max_rel_err = 0.0;
  int64_t first_fail_index = -1;
  double first_fail_out = 0.0;
  double first_fail_ref = 0.0;
};

bool within_budget(double out, double ref, const Budget& budget);

// `out` returns the output element at a flat index (already widened to double).
Comparison compare_output(const std::vector<ReferenceValue>& ref, const std::vector<double>& out, const Budget& budget);

}  // namespace tsr
