// The kernel record of one spec, as every archive writer of the compiler
// makes it (a build's archive, the one-kernel archives the launcher and the
// arbiter open in memory).
#pragma once

#include "archive/archive_contents.h"
#include "spec/kernel_spec.h"

namespace tsr {

// Name, identity, family, dtype and ABI; no variants, no verdicts.
ArchiveKernel archive_kernel(const KernelSpec& spec);

}  // namespace tsr
