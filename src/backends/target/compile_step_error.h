// The message a failed compile step of a GPU target gives: where the spec
// came from, the step, the kernel and the target, then the step's own text
// ("specs/a.yaml:2:1: error: ABI check failed for kernel 'a' (hip:gfx90a): ...").
#pragma once

#include <string>

#include "spec/kernel_spec.h"
#include "support/error.h"

namespace tsr {

// `e` with that prefix, keeping its kind (and so its exit code).
Error compile_step_error(const KernelSpec& spec, const std::string& target, const std::string& step, const Error& e);

}  // namespace tsr
