// Generated candidates of the cuda target (docs/targets-cuda.md,
// "Tunables and generated candidates"): the f32 FMA-tile matmul's blocking and
// the elementwise block size. Each candidate is its own artifact (one source,
// entry = the kernel's name), so a candidate's source names itself on its first
// line and the compile step reads its launch geometry from that line.
#pragma once

#include <string>
#include <vector>

#include "cuda/cuda_emit_kernels.h"
#include "target/target.h"

namespace tsr::cuda {

// "default" first (emit_kernel(spec), byte for byte), then the others for this spec.
std::vector<GeneratedCandidate> cuda_candidates(const KernelSpec& spec);
// One candidate's source and geometry; every name but "default" adds the line
// `// tesserac candidate <name>` in front of the default's text layout.
gpu::EmittedKernel emit_cuda_candidate(const KernelSpec& spec, const GeneratedCandidate& candidate);
// The geometry `source` was emitted for: that of the candidate its first line
// names, else the default's (an edited or hand-written source).
gpu::LaunchPlan launch_plan_for_source(const KernelSpec& spec, const std::string& source);

}  // namespace tsr::cuda
