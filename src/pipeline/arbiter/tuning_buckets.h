// Shape buckets of the arbiter (docs/arbiter.md, "Shape buckets"): a kernel
// with a runtime extent is measured at one representative shape per bucket
// of its leading runtime dimension (matmul M, elementwise N, rowwise rows),
// and the stub picks the bucket's route from the scalar at launch
// (docs/archive-format.md, route.dim / route.bounds).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

struct TuneBucket {
  std::string label;                        // "M<=16", "M>256", "all"
  std::map<std::string, int64_t> scalars;   // every runtime scalar's value for the measurement
};

struct TuneBuckets {
  std::string dim;                 // the runtime scalar routed on; empty: one bucket (static shape)
  std::vector<int64_t> bounds;     // ascending; bucket i holds extents <= bounds[i], the last one the rest
  std::vector<TuneBucket> buckets; // bounds.size() + 1 (1 when dim is empty)
};

// The buckets of `spec`. Other runtime extents than the routed one are
// measured at kTuneOtherExtent.
TuneBuckets tuning_buckets(const KernelSpec& spec);

inline constexpr int64_t kTuneOtherExtent = 1024;

// "M=16 N=1024 K=64": the shape one bucket is measured at, static extents included.
std::string bucket_shape_text(const KernelSpec& spec, const TuneBucket& bucket);

}  // namespace tsr
