// The HIP prelude of every kernel the hip target emits (clang AMDGPU builtins;
// the family code itself is shared with the cuda target through
// gpu::GpuDialect).
#pragma once

#include <string>

#include "spec/kernel_spec.h"
#include "hip/hip_archs.h"

namespace tsr::hip {

// Header comment, the wave size (checked against the compiler's), the
// primitive block (HIP keywords, global memory, f16 conversions: inside
// `#ifndef TSR_EMULATED`, replaced by the CPU emulator's twins), then the
// builtin-based parts the emulator runs as written (thread ids, barrier, lane
// exchange, bf16 rounding, MFMA wrapper) and the f32 math (no ocml).
std::string hip_prelude(const KernelSpec& spec, const HipArch& arch);

// Whether a spec's kernel runs on matrix cores for this arch (16-bit matmul on MFMA archs).
bool uses_mfma(const KernelSpec& spec, const HipArch& arch);

}  // namespace tsr::hip
