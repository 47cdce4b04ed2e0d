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
#include "targets/target.h"
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

struct Measurement {
  double median_ns = 0.0;
  std::vector<double> samples_ns;   // per round, per launch
  int launches_per_sample = 1;
};

// Warm-up, then `rounds` rounds; in each round every candidate runs one
// sample (a batch of launches lasting at least min_sample_ms), starting
// from a different candidate each round, so drift (frequency, other load)
// hits every candidate alike. The median per candidate, in input order.
// After a sample of a candidate with `own_threads` (a vendor library with
// its own thread pool), the measurement sleeps settle_ms: OpenBLAS's idle
// workers spin for about 2^28 cycles (THREAD_TIMEOUT) after a call and
// would otherwise slow whichever candidate runs next.
Expected<std::vector<Measurement>> measure_interleaved(const std::vector<const StubCandidate*>& candidates,
                                                       const std::vector<bool>& own_threads, LaunchBuffers& buffers,
                                                       int rounds, double min_sample_ms, double settle_ms);

}  // namespace tsr
