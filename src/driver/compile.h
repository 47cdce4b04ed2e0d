// Emit + compile one spec for one target, with the kernel identity and the
// toolchain version folded into the artifact key.
#pragma once

#include "spec/kernel_spec.h"
#include "support/error.h"
#include "targets/target.h"

namespace tsr {

Expected<std::string> emit_for_target(const KernelSpec& spec, const TargetName& target);
Expected<Artifact> compile_for_target(const KernelSpec& spec, const TargetName& target);

}  // namespace tsr
