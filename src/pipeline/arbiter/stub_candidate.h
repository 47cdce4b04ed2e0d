// One candidate loaded through libtesserart for measurement: a one-kernel
// archive in memory holding the candidate's artifact, loaded with the
// delegate policy given, launched with tsr_kernel_launch — the code path an
// application's launch takes, delegates and routes included.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "support/error.h"
#include "target/target.h"
#include "tesserart.h"

namespace tsr {

// The buffers and scalars of one launch at one shape, inputs filled with
// seeded values in [-1, 1] (what is measured is time, not values).
struct LaunchBuffers {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<tsr_buffer_arg> args;
  std::vector<int64_t> scalars;   // in ABI order
};
LaunchBuffers make_launch_buffers(const KernelSpec& spec, const std::map<std::string, int64_t>& scalars,
                                  uint64_t seed);

class StubCandidate {
 public:
  // `delegates` is tsr_select_options.delegates: 1 to measure a delegate
  // (a delegate that cannot be resolved fails instead of falling back).
  static Expected<std::unique_ptr<StubCandidate>> open(const KernelSpec& spec, const Artifact& artifact,
                                                       int delegates);
  ~StubCandidate();
  StubCandidate(const StubCandidate&) = delete;
  StubCandidate& operator=(const StubCandidate&) = delete;

  // The step a launch with these scalars runs ("delegate:cblas_sgemm", "entry:k_tsr_entry").
  Expected<std::string> route(const std::vector<int64_t>& scalars) const;
  Status launch(LaunchBuffers& buffers) const;

 private:
  StubCandidate() = default;
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  tsr_kernel* kernel_ = nullptr;
  std::string name_;
};

}  // namespace tsr
