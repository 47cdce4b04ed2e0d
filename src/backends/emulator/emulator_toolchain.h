// The clang that builds emulated kernel modules: the x86 target's discovery
// (TESSERAC_CLANG, then clang-14, then clang in PATH), remembered per process.
// Discovery runs `clang --version`, which costs about as much as loading
// clang's libraries (0.3 s); the emulated test set builds dozens of modules.
#pragma once

#include "target/target.h"

namespace tsr::cuda::emu {

// find_clang()'s answer for the current TESSERAC_CLANG and PATH; asked again
// when either changes. Thread-safe.
ToolchainInfo emulator_clang();

}  // namespace tsr::cuda::emu
