// How the arbiter times candidates against each other (docs/arbiter.md,
// "Measurement"): interleaved rounds, each candidate warmed right before
// its own sample, a sample's value the median of short timed units.
#pragma once

#include <string>
#include <vector>

#include "arbiter/stub_candidate.h"
#include "support/error.h"

namespace tsr {

struct MeasurePlan {
  int rounds = 7;              // interleaved rounds; a candidate's time is the median over these
  double min_sample_ms = 2.0;  // one sample lasts at least this long
  double warm_ms = 10.0;       // untimed launches right before each sample, at least this long
  double unit_us = 50.0;       // a sample is timed in units of launches lasting at least this long
  double settle_ms = 250.0;    // pause after a sample of a candidate with its own thread pool

  // Every parameter and the method's version, as the tuning cache key and
  // the archive's `tune.method` record it.
  std::string describe() const;
};

// The median of `v` (0 when empty; the mean of the middle two when even).
double median(std::vector<double> v);

struct Measurement {
  double median_ns = 0.0;           // per launch: the median of samples_ns
  std::vector<double> samples_ns;   // per round, per launch: the median of the sample's units
  int launches_per_unit = 1;
  int units_per_sample = 1;
};

// First a calibration per candidate: two launches, warm_ms more, then one
// timed launch that sizes the unit and the sample. Then `rounds`
// rounds; each round runs one sample of every candidate, starting from a
// different candidate each round so drift (frequency, other load) hits all
// alike. A sample is: warm_ms of untimed launches (a library's pool wakes,
// the clock ramps: without it a candidate that follows a pause was measured
// up to 2.8x slow on a 2-vCPU VM), then units_per_sample timed units; its
// value is the median unit time per launch, so one preempted unit does not
// move it. After a sample of a candidate with `own_threads` (a vendor
// library with its own thread pool) the measurement sleeps settle_ms:
// OpenBLAS's idle workers spin for about 2^28 cycles (THREAD_TIMEOUT) after
// a call and would otherwise slow whichever candidate runs next. Results in
// input order.
Expected<std::vector<Measurement>> measure_interleaved(const std::vector<const StubCandidate*>& candidates,
                                                       const std::vector<bool>& own_threads, LaunchBuffers& buffers,
                                                       const MeasurePlan& plan);

}  // namespace tsr
