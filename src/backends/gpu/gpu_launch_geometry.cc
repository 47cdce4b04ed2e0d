// The compiler's side of the one geometry evaluator (runtime-stub/src/
// backend_cuda_geometry.c; CUDA C++ Programming Guide, "Technical
// Specifications per Compute Capability").
#include "gpu/gpu_launch_geometry.h"

#include <cstring>

extern "C" {
#include "tesserart_compiler.h"
}

namespace tsr::gpu {

namespace {

const char* kind_name(GeometryKind kind) { return kind == GeometryKind::grid ? "grid" : "block"; }

// tsr_cuda_eval_triple on a std::map of scalars: NULL or the stub's static reason.
const char* stub_eval(const std::string& text, GeometryKind kind, const std::map<std::string, int64_t>& scalars,
                      std::array<uint32_t, 3>& out) {
  std::vector<const char*> names;
  std::vector<int64_t> values;
  for (const auto& [name, value] : scalars) {
    names.push_back(name.c_str());
    values.push_back(value);
  }
  unsigned v[3];
  const char* why = tsr_cuda_eval_triple(text.c_str(), kind_name(kind), names.data(), values.data(), values.size(), v);
  out = {v[0], v[1], v[2]};
  return why;
}

}  // namespace

Expected<std::array<uint32_t, 3>> evaluate_geometry(const std::string& text, GeometryKind kind,
                                                    const std::map<std::string, int64_t>& scalars) {
  std::array<uint32_t, 3> out{};
  if (const char* why = stub_eval(text, kind, scalars, out))
    return invalid_input("cuda." + std::string(kind_name(kind)) + " '" + text + "' " + why);
  return out;
}

Status check_launch_geometry(const LaunchPlan& plan, const std::vector<std::string>& scalar_names) {
  // Every runtime scalar 1: names resolve, and only static components can fail a limit.
  std::map<std::string, int64_t> ones;
  for (const std::string& n : scalar_names) ones[n] = 1;
  for (GeometryKind kind : {GeometryKind::block, GeometryKind::grid}) {
    const std::string text = kind == GeometryKind::grid ? plan.grid_text() : plan.block_text();
    std::array<uint32_t, 3> out{};
    const char* why = stub_eval(text, kind, ones, out);
    if (!why || (kind == GeometryKind::grid && std::strcmp(why, "has a component below 1") == 0)) continue;
    const std::string where = "launch " + std::string(kind_name(kind)) + " '" + text + "' ";
    if (why == TSR_CUDA_GRID_TOO_LARGE) return invalid_input(where + why);
    return internal_error("internal: cuda " + where + why);
  }
  return ok();
}

}  // namespace tsr::gpu
