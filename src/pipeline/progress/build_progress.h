// What the build pipeline tells a user while it runs (tesserac build/test):
// one event per step, in a fixed order for any -j.
#pragma once

#include <string>

namespace tsr {

class BuildProgress {
 public:
  virtual ~BuildProgress() = default;
  // Step `done` of `total` starts: "compile" or "oracle" for one kernel-target.
  virtual void step(size_t done, size_t total, const std::string& phase, const std::string& target,
                    const std::string& kernel) = 0;
  // A line for -v (a compile cache hit, ...).
  virtual void detail(const std::string& line) = 0;
  // The pipeline is over: a TTY line is cleared.
  virtual void finish() = 0;
};

}  // namespace tsr
