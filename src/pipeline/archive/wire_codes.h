// The archive's (and the stub's) codes for a binding's dtype and role: the
// tsr_dtype and tsr_role values of tesserart.h, the one definition the
// writer, the reader and every launch in the compiler use
// (docs/archive-format.md, "Bindings").
#pragma once

#include "spec/abi.h"
#include "spec/kernel_spec.h"
#include "tesserart.h"

namespace tsr {

// TSR_DTYPE_F32, _F16, _BF16 for a storage dtype.
tsr_dtype stub_dtype(DType t);
// The storage dtype of a buffer's code; f32 for any other code (the stub
// validated the archive before the compiler reads it).
DType dtype_from_stub(tsr_dtype code);
// TSR_ROLE_IN, _OUT, _SCALAR.
tsr_role stub_role(Role r);
Role role_from_stub(tsr_role code);
// A binding's dtype code in the archive: TSR_DTYPE_I64 for a runtime scalar.
tsr_dtype binding_dtype_code(const Binding& b);

}  // namespace tsr
