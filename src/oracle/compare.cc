#include "oracle/compare.h"

#include <cmath>

namespace tsr {

bool within_budget(double out, double ref, const Budget& budget) {
  if (std::isnan(ref)) return std::isnan(out);
  if (std::isinf(ref)) return out == ref;
  if (!std::isfinite(out)) return false;
  return std::fabs(out - ref) <= budget.atol + budget.rtol * std::fabs(ref);
}

Comparison compare_output(const std::vector<ReferenceValue>& ref, const std::vector<double>& out, const Budget& budget) {
  Comparison c;
  for (const ReferenceValue& r : ref) {
    const double o = out[static_cast<size_t>(r.index)];
    ++c.checked;
    if (std::isfinite(r.value) && std::isfinite(o)) {
      const double abs_err = std::fabs(o - r.value);
      c.max_abs_err = std::max(c.max_abs_err, abs_err);
      if (r.value != 0.0) c.max_rel_err = std::max(c.max_rel_err, abs_err / std::fabs(r.value));
    }
    if (within_budget(o, r.value, budget)) continue;
    if (!std::isfinite(o) || !std::isfinite(r.value)) c.max_abs_err = INFINITY;
    ++c.failures;
    if (c.pass) {
      c.pass = false;
      c.first_fail_index = r.index;
      c.first_fail_out = o;
      c.first_fail_ref = r.value;
    }
  }
  return c;
}

}  // namespace tsr
