// The hip target's emitter (AMD ISA references: CDNA2 for gfx90a, CDNA3 for
// gfx940, RDNA2/RDNA3 for gfx1030/gfx1100; clang's AMDGPU builtins): HIP C++
// that includes no ROCm header and calls no device-library function, so clang
// builds it with -nogpuinc -nogpulib for every listed gfx (docs/targets-hip.md, "Kernels").
#pragma once

#include "spec/kernel_spec.h"
#include "gpu/gpu_emit_common.h"
#include "hip/hip_archs.h"

namespace tsr::hip {

// Deterministic source plus the geometry it was written for; the plan is the
// cuda target's type (same grammar), recorded as hip.grid / hip.block /
// hip.shared_bytes with plan.write_metadata(metadata, "hip").
struct EmittedHipKernel {
  std::string source;
  gpu::LaunchPlan plan;
};

// `extern "C" __global__` named spec.name, parameters in ABI order (buffers
// as pointers, runtime scalars as long long), as the cuda emitter writes them.
// Attention is refused before this is reached.
EmittedHipKernel emit_kernel(const KernelSpec& spec, const HipArch& arch);

}  // namespace tsr::hip
