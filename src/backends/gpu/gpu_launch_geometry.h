// The launch geometry of Artifact.metadata["cuda.grid"/"cuda.block"]
// (docs/targets-cuda.md): a C++ face on the runtime stub's evaluator
// (tsr_cuda_eval_triple), so the compiler and the stub check the grammar and
// the CUDA grid and block limits with the same code.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/error.h"
#include "gpu/gpu_emit_common.h"

namespace tsr::gpu {

enum class GeometryKind { grid, block };

// The three extents, or the stub's reason (e.g. "exceeds the grid limit (x
// 2^31-1, y and z 65535)", "has a component below 1" for an empty problem,
// which the stub skips before evaluating anything).
Expected<std::array<uint32_t, 3>> evaluate_geometry(const std::string& text, GeometryKind kind,
                                                    const std::map<std::string, int64_t>& scalars);

// The build-time check of an artifact's plan: the block and every static
// grid component within the limits, runtime scalars (`scalar_names`) parsed
// as names. A static grid past a limit is invalid input (the spec's sizes);
// anything else wrong is an internal error of the emitter. An empty static
// problem (a component of 0) passes: the stub launches nothing for it.
Status check_launch_geometry(const LaunchPlan& plan, const std::vector<std::string>& scalar_names);

}  // namespace tsr::gpu
