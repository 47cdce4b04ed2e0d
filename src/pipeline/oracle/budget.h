// Accuracy budgets (DESIGN.md §4): tolerance_bounded uses the declared
// atol/rtol; reference_exact uses the default for the storage dtype; a runner
// may widen either with its floor.
#pragma once

#include "spec/kernel_spec.h"
#include "target/target.h"

namespace tsr {

struct Budget {
  double atol = 0.0;
  double rtol = 0.0;
};

// "No worse than the reference": about two storage ulps relative, plus an
// absolute term for results that cancel to near zero.
Budget default_budget(DType storage);
Budget declared_budget(const KernelSpec& spec);
Budget effective_budget(const KernelSpec& spec, const BudgetFloor& floor);

}  // namespace tsr
