#include "oracle/compare.h"

#include <algorithm>
#include <cmath>

namespace tsr {

bool within_budget(double out, double ref, const Budget& budget) {
  if (std::isnan(ref)) return std::isnan(out);
  if (std::isinf(ref)) return out == ref;
  if (!std::isfinite(out)) return false;
  return std::fabs(out - ref) <= budget.atol + budget.rtol * std::fabs(ref);
}

double relative_threshold(const Budget& budget) {
  return budget.rtol > 0.0 ? budget.atol / budget.rtol : INFINITY;
}

Comparison compare_output(const std::vector<ReferenceValue>& ref, const std::vector<double>& out, const Budget& budget) {
  return compare_outputs(ref, {out}, budget);
}

Comparison compare_outputs(const std::vector<ReferenceValue>& ref, const std::vector<std::vector<double>>& outs,
                           const Budget& budget) {
  Comparison c;
  const double threshold = relative_threshold(budget);
  for (const ReferenceValue& r : ref) {
    const double o = outs[static_cast<size_t>(r.output)][static_cast<size_t>(r.index)];
    ++c.checked;
    if (std::isfinite(r.value) && std::isfinite(o)) {
      const double abs_err = std::fabs(o - r.value);
      const double magnitude = std::fabs(r.value);
      c.max_abs_err = std::max(c.max_abs_err, abs_err);
      if (magnitude >= threshold && magnitude > 0.0) {
        c.max_rel_err = std::max(c.max_rel_err, abs_err / magnitude);
        ++c.rel_checked;
      }
      const double allowed = budget.atol + budget.rtol * magnitude;
      const double use = allowed > 0.0 ? abs_err / allowed : (abs_err > 0.0 ? INFINITY : 0.0);
      if (use > c.budget_use) {
        c.budget_use = use;
        c.absolute_term_decided = budget.atol >= budget.rtol * magnitude;
      }
    }
    if (within_budget(o, r.value, budget)) continue;
    if (!std::isfinite(o) || !std::isfinite(r.value)) c.max_abs_err = INFINITY;
    ++c.failures;
    if (c.pass) {
      c.pass = false;
      c.first_fail_index = r.index;
      c.first_fail_output = r.output;
      c.first_fail_out = o;
      c.first_fail_ref = r.value;
    }
  }
  return c;
}

}  // namespace tsr
