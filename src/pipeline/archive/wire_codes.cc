#include "archive/wire_codes.h"

namespace tsr {

tsr_dtype stub_dtype(DType t) {
  switch (t) {
    case DType::f32: return TSR_DTYPE_F32;
    case DType::f16: return TSR_DTYPE_F16;
    case DType::bf16: return TSR_DTYPE_BF16;
  }
  return TSR_DTYPE_F32;
}

DType dtype_from_stub(tsr_dtype code) {
  switch (code) {
    case TSR_DTYPE_F16: return DType::f16;
    case TSR_DTYPE_BF16: return DType::bf16;
    default: return DType::f32;
  }
}

tsr_role stub_role(Role r) {
  switch (r) {
    case Role::input: return TSR_ROLE_IN;
    case Role::output: return TSR_ROLE_OUT;
    case Role::scalar: return TSR_ROLE_SCALAR;
  }
  return TSR_ROLE_SCALAR;
}

Role role_from_stub(tsr_role code) {
  return code == TSR_ROLE_IN ? Role::input : code == TSR_ROLE_OUT ? Role::output : Role::scalar;
}

tsr_dtype binding_dtype_code(const Binding& b) { return b.role == Role::scalar ? TSR_DTYPE_I64 : stub_dtype(b.dtype); }

}  // namespace tsr
