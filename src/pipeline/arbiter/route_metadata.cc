#include "arbiter/route_metadata.h"

#include <cstdio>

namespace tsr {

namespace {

std::string dim_text(const Dim& d) { return d.is_static() ? std::to_string(d.value) : d.name; }

// The one `scale` a delegate may fold into alpha (delegate_cannot_compute
// refuses any other epilogue), exact as a decimal.
std::string alpha_text(const MatmulSpec& mm) {
  double alpha = 1.0;
  for (const EpilogueOp& e : mm.epilogue)
    if (e.kind == EpilogueOp::Kind::scale) alpha *= e.scale;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", alpha);
  return buf;
}

}  // namespace

std::string delegate_args(const KernelSpec& spec) {
  const MatmulSpec& mm = spec.matmul();
  return std::string("a=a:") + layout_name(mm.a) + " b=b:" + layout_name(mm.b) + " c=c m=" + dim_text(mm.m) +
         " n=" + dim_text(mm.n) + " k=" + dim_text(mm.k) + " alpha=" + alpha_text(mm);
}

std::map<std::string, std::string> route_metadata(const KernelSpec& spec, const RoutePlan& plan) {
  std::map<std::string, std::string> meta;
  if (!plan.dim.empty()) {
    meta["route.dim"] = plan.dim;
    std::string bounds;
    for (int64_t b : plan.bounds) bounds += (bounds.empty() ? "" : ",") + std::to_string(b);
    meta["route.bounds"] = bounds;
  }
  for (size_t i = 0; i < plan.buckets.size(); ++i) {
    std::string steps;
    for (const RouteStep& s : plan.buckets[i]) {
      steps += (steps.empty() ? "" : " ") + s.text();
      if (!s.delegate) continue;
      const DelegateEntry* d = find_delegate(spec.family, "x86", s.name);
      if (!d) continue;
      std::string sonames;
      for (const std::string& so : d->sonames) sonames += (sonames.empty() ? "" : " ") + so;
      meta["delegate." + s.name + ".convention"] = d->convention;
      meta["delegate." + s.name + ".library"] = sonames;
      meta["delegate." + s.name + ".args"] = delegate_args(spec);
    }
    meta["route." + std::to_string(i)] = steps;
  }
  return meta;
}

}  // namespace tsr
