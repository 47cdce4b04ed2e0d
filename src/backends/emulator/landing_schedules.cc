// Both cp.async landing schedules over one launch (landing_schedules.h).
#include "emulator/landing_schedules.h"

#include <cstdio>
#include <cstring>

namespace tsr::cuda::emu {

namespace {

// What the kernel may write: every buffer that is not an input.
std::vector<std::vector<uint8_t>> written_buffers(const std::vector<GlobalBuffer>& buffers) {
  std::vector<std::vector<uint8_t>> out;
  for (const GlobalBuffer& b : buffers)
    if (!b.input) out.emplace_back(b.base, b.base + b.size);
  return out;
}

// The buffers are the launch's payloads, which the kernel writes as well.
void restore(const std::vector<GlobalBuffer>& buffers, const std::vector<std::vector<uint8_t>>& saved) {
  size_t i = 0;
  for (const GlobalBuffer& b : buffers)
    if (!b.input) std::memcpy(const_cast<uint8_t*>(b.base), saved[i++].data(), b.size);
}

std::string byte_text(uint8_t v) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%02x", v);
  return s;
}

// "" when the late and eager outputs agree, else the report line for the first buffer that differs.
std::string first_difference(const std::vector<GlobalBuffer>& buffers, const std::vector<std::vector<uint8_t>>& late,
                             const std::vector<std::vector<uint8_t>>& eager) {
  size_t i = 0;
  for (const GlobalBuffer& b : buffers) {
    if (b.input) continue;
    const std::vector<uint8_t>& l = late[i];
    const std::vector<uint8_t>& e = eager[i++];
    size_t differ = 0, first = 0;
    for (size_t k = 0; k < l.size(); ++k)
      if (l[k] != e[k] && differ++ == 0) first = k;
    if (differ)
      return "cp.async: the result depends on when copies land: " + std::to_string(differ) + " of " +
             std::to_string(l.size()) + " bytes of '" + b.name + "' differ, first at offset " + std::to_string(first) +
             " (" + byte_text(l[first]) + " with copies landing at their wait_group, " + byte_text(e[first]) +
             " with copies landing at their issue)";
  }
  return "";
}

}  // namespace

std::string run_grid_both_landings(const KernelModule& module, const LaunchShape& shape, void* const* args,
                                   const std::vector<GlobalBuffer>& buffers, const LaunchLimits& limits) {
  const std::vector<std::vector<uint8_t>> before = written_buffers(buffers);
  const GridRun late = run_grid(module, shape, args, buffers, limits, CopyLanding::late);
  if (!late.errors.empty() || late.copies == 0) return late.errors;
  const std::vector<std::vector<uint8_t>> late_out = written_buffers(buffers);
  restore(buffers, before);
  const GridRun eager = run_grid(module, shape, args, buffers, limits, CopyLanding::eager);
  const std::vector<std::vector<uint8_t>> eager_out = written_buffers(buffers);
  restore(buffers, late_out);
  if (!eager.errors.empty()) return "with copies landing at their issue: " + eager.errors;
  const std::string difference = first_difference(buffers, late_out, eager_out);
  return difference.empty() ? "" : "1 error\n  " + difference;
}

}  // namespace tsr::cuda::emu
