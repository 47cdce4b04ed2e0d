// The hip target's compile step (clang's HIP offload driver, "HIP Support" in
// the clang manual; AMDGPU target IDs per the LLVM AMDGPUUsage document):
// emitted HIP C++ to one AMDGPU code object per gfx arch with clang-15, run as
// a logged subprocess in a private scratch directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/error.h"
#include "target/target.h"

namespace tsr::hip {

// $TESSERAC_HIP_CLANG, else clang-15 in PATH, with its exact version line.
ToolchainInfo find_hip_clang();

// "" for an arch of the table (hip_archs.h); otherwise why the installed
// toolchain cannot build it, naming that toolchain's version and what would
// be needed (gfx942: LLVM/clang >= 17).
std::string arch_refusal(const std::string& arch);

// The clang arguments after the tool, without input and output: device-only
// HIP, no ROCm headers or device libraries (the emitted source needs
// neither, and ROCm 5.2's libraries lack gfx1100), -O3.
std::vector<std::string> compile_flags(const std::string& arch);

// Compiles `source` to a code object for `arch`; a clang failure is a
// toolchain error carrying clang's exit code and output.
Expected<std::vector<uint8_t>> compile_code_object(const std::string& source, const std::string& arch,
                                                   const std::string& kernel_name);

}  // namespace tsr::hip
