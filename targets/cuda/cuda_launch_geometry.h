// The launch-geometry grammar of Artifact.metadata["cuda.grid"/"cuda.block"]
// shared with the runtime stub (docs/targets-cuda.md): comma-separated
// components, each `INT` | `NAME` | `cdiv(INT_OR_NAME,INT)`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tsr::cuda {

// nullopt when the text does not parse, names an unknown scalar, a value is
// negative, or a component exceeds the CUDA limits for its axis.
std::optional<std::array<uint32_t, 3>> evaluate_geometry(const std::string& text,
                                                         const std::map<std::string, int64_t>& scalars);

}  // namespace tsr::cuda
