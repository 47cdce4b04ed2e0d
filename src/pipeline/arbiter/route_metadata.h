// The arbiter's result as variant metadata (docs/archive-format.md, format
// 2.3): `route.*` and `delegate.*` keys the runtime stub follows at launch,
// and `tune.*` keys recording every measurement, which the stub ignores and
// `tesserac inspect` shows.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "delegate/delegate_table.h"
#include "spec/kernel_spec.h"

namespace tsr {

// One step of a bucket's route: a delegate's callee, or an entry symbol of
// the variant's shared object.
struct RouteStep {
  bool delegate = false;
  std::string name;
  std::string text() const { return (delegate ? "delegate:" : "entry:") + name; }
};

struct RoutePlan {
  std::string dim;                              // runtime scalar routed on; empty: one bucket
  std::vector<int64_t> bounds;
  std::vector<std::vector<RouteStep>> buckets;  // bounds.size() + 1, each in fallback order
};

// route.dim, route.bounds, route.<i>, and delegate.<callee>.{convention,
// library, args} for every delegate the plan names (from the closed table).
std::map<std::string, std::string> route_metadata(const KernelSpec& spec, const RoutePlan& plan);

// `a=a:row b=b:col c=c m=M n=64 k=K alpha=1`: how the stub maps the kernel's
// bindings onto a matmul delegate's arguments.
std::string delegate_args(const KernelSpec& spec);

}  // namespace tsr
