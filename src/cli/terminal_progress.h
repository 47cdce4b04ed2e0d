// The progress printer of `build` and `test` (on stderr, so stdout keeps
// the verdict table): on a terminal one line rewritten in place, ninja's
// way ("[12/40] compile cuda:sm_90 gemm_bias_gelu"); otherwise one plain
// line per step; nothing with -q. -v prints plain lines and the details.
#pragma once

#include <memory>

#include "progress/build_progress.h"

namespace tsr::cli {

std::unique_ptr<BuildProgress> make_terminal_progress(bool quiet, bool verbose);

}  // namespace tsr::cli
