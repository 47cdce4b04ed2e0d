// Turns the verdict rows of a build into the contents of a fat archive.
#pragma once

#include <vector>

#include "archive/archive_contents.h"
#include "archive/archive_kernel.h"
#include "driver/verdict_row.h"

namespace tsr {

// Every spec becomes a kernel with its ABI; every row adds its verdict and,
// when it compiled, its artifact as a variant. No paths or times are stored.
ArchiveContents assemble_archive(const std::vector<KernelSpec>& specs, const std::vector<VerdictRow>& rows);

}  // namespace tsr
