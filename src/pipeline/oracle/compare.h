// Per-element comparison: |out - ref| <= atol + rtol * |ref|. Non-finite
// reference values must be matched exactly (same infinity, or NaN for NaN).
// The relative error is reported only where the relative term can decide,
// |ref| >= atol / rtol (relative_threshold): below it, a near-zero reference
// makes any ratio meaningless and the absolute term bounds the error anyway.
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
  double max_rel_err = 0.0;        // over elements with |ref| >= relative_threshold
  int64_t rel_checked = 0;         // how many elements that is
  // The largest |out - ref| / (atol + rtol * |ref|) over finite elements (1
  // is the edge of the budget), and which term was larger there.
  double budget_use = 0.0;
  bool absolute_term_decided = true;
  int64_t first_fail_index = -1;
  int first_fail_output = 0;   // ReferenceValue::output of the first failure
  double first_fail_out = 0.0;
  double first_fail_ref = 0.0;
};

bool within_budget(double out, double ref, const Budget& budget);
// atol / rtol; infinity when rtol is 0 (the absolute term always decides).
double relative_threshold(const Budget& budget);

// `out` returns the output element at a flat index (already widened to double).
Comparison compare_output(const std::vector<ReferenceValue>& ref, const std::vector<double>& out, const Budget& budget);
// Every output of a kernel: `outs[r.output]` holds output r.output's elements.
Comparison compare_outputs(const std::vector<ReferenceValue>& ref, const std::vector<std::vector<double>>& outs,
                           const Budget& budget);

}  // namespace tsr
