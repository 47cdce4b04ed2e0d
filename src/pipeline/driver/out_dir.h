// What `build --out-dir DIR` writes, and the check before any build
// output: the loose artifacts with manifest.json (docs/cli.md), and the
// kernels that would ship without a variant.
#pragma once

#include <string>
#include <vector>

#include "driver/verdict_row.h"
#include "spec/kernel_spec.h"
#include "support/error.h"

namespace tsr {

// "<kernel>.<kind>_<arch><ext>", ext the target's artifact_file_extension.
// Only for a row with an artifact (it was compiled by a registered target).
std::string loose_artifact_name(const VerdictRow& row);

// Every row's artifact as DIR/loose_artifact_name(row), then
// DIR/manifest.json describing them; each file written atomically.
Status write_loose_artifacts(const std::string& dir, const std::vector<VerdictRow>& rows);

// One message per kernel none of whose rows compiled a variant (every
// target planned was unsupported or unavailable): an archive would hold
// the kernel with nothing to launch.
std::vector<std::string> kernels_without_variants(const std::vector<KernelSpec>& specs,
                                                  const std::vector<VerdictRow>& rows);

}  // namespace tsr
