// Turns the verdict rows of a build into the contents of a fat archive.
#pragma once

#include <vector>

#include "archive/archive_contents.h"
#include "driver/qualify.h"

namespace tsr {

// The kernel record of one spec: name, identity, family, dtype and ABI, no variants.
ArchiveKernel archive_kernel(const KernelSpec& spec);

// Every spec becomes a kernel with its ABI; every row adds its verdict and,
// when it compiled, its artifact as a variant. No paths or times are stored.
ArchiveContents assemble_archive(const std::vector<KernelSpec>& specs, const std::vector<VerdictRow>& rows);

}  // namespace tsr
