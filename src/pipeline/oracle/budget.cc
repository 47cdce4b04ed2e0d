#include "oracle/budget.h"

#include <algorithm>

namespace tsr {

Budget default_budget(DType storage) {
  switch (storage) {
    case DType::f32: return {1e-4, 1e-4};
    case DType::f16: return {1e-3, 2e-3};
    case DType::bf16: return {8e-3, 1.6e-2};
  }
  return {};
}

Budget declared_budget(const KernelSpec& spec) {
  if (spec.accuracy.kind == Accuracy::Kind::reference_exact) return default_budget(spec.dtype);
  return {spec.accuracy.atol.value_or(0.0), spec.accuracy.rtol.value_or(0.0)};
}

Budget effective_budget(const KernelSpec& spec, const BudgetFloor& floor) {
  Budget b = declared_budget(spec);
  return {std::max(b.atol, floor.atol), std::max(b.rtol, floor.rtol)};
}

}  // namespace tsr
