// Trials at the shapes a routed variant dispatches on (docs/oracle.md,
// "Route trials"): the stub picks a route per bucket of one runtime extent,
// so a check that never launches a shape inside a bucket never runs that
// bucket's route. Each bucket gets one shape strictly inside it and, for a
// tuned variant, the shape its route was measured at.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "support/error.h"

namespace tsr {

struct ShapeTrial {
  std::string label;                        // "route M>256", "timed M>256"
  std::map<std::string, int64_t> scalars;   // every runtime scalar
};

// Buckets of `dim` split at ascending `bounds` (bucket i holds extents <=
// bounds[i] and > bounds[i-1], the last one the rest): per bucket an odd
// extent strictly inside it (the other runtime scalars at trial 0's sizes),
// then the bucket's entry of `timed` when there is one (labels[i] names it).
std::vector<ShapeTrial> bucket_trials(const KernelSpec& spec, const std::string& dim,
                                      const std::vector<int64_t>& bounds, const std::vector<std::string>& labels,
                                      const std::vector<std::map<std::string, int64_t>>& timed);

// The trials of bucket_trials for the routes a variant's metadata declares:
// route.dim and route.bounds (docs/archive-format.md) and the measured shapes
// tune.scalars.<i> ("M=16 N=1024 K=1024"). Empty for a variant without
// routes; an error when the keys do not parse or name no runtime scalar.
Expected<std::vector<ShapeTrial>> route_trials(const KernelSpec& spec,
                                               const std::map<std::string, std::string>& metadata);

// "M=16 N=1024": every runtime scalar, in ABI order, as tune.scalars.<i> holds it.
std::string scalars_text(const KernelSpec& spec, const std::map<std::string, int64_t>& scalars);

}  // namespace tsr
