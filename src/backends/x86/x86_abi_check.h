// The x86 ABI check (tesserart_kernel.h, "x86 kernel ABI v2"): every symbol
// the stub resolves in a variant's shared object is exported as a function.
#pragma once

#include "spec/kernel_spec.h"
#include "support/error.h"
#include "target/target.h"

namespace tsr::x86 {

// The variant's entry and every `entry:` step of its routes (route.<i>
// metadata), each with its `_workspace`: what the stub's dlsym calls ask for
// (backend_x86.c, route_x86.c). C symbols carry no parameter types, so the
// parameters are the emitter's to get right (the oracle launches them);
// the names and their kind are checked here.
Status check_shared_object_abi(const KernelSpec& spec, const Artifact& artifact);

}  // namespace tsr::x86
