#include "arbiter/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

namespace tsr {

namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

Status launch_for(const StubCandidate& c, LaunchBuffers& buffers, double ms) {
  const Clock::time_point start = Clock::now();
  do {
    if (Status s = c.launch(buffers); !s.ok()) return s;
  } while (ns_since(start) < ms * 1e6);
  return ok();
}

}  // namespace

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string MeasurePlan::describe() const {
  std::ostringstream os;
  os << "interleaved-2: median of " << rounds << " rounds; sample = median of " << unit_us << " us units over "
     << min_sample_ms << " ms after " << warm_ms << " ms warm-up; settle " << settle_ms << " ms";
  return os.str();
}

Expected<std::vector<Measurement>> measure_interleaved(const std::vector<const StubCandidate*>& candidates,
                                                       const std::vector<bool>& own_threads, LaunchBuffers& buffers,
                                                       const MeasurePlan& plan) {
  std::vector<Measurement> out(candidates.size());
  auto settle = [&](size_t c) {
    if (c < own_threads.size() && own_threads[c])
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(plan.settle_ms));
  };
  // Calibration: two launches (page faults, lazy binding, delegate
  // resolution, the pools' start), warm_ms more, then one timed launch sizes
  // the unit and the sample.
  for (size_t c = 0; c < candidates.size(); ++c) {
    for (int i = 0; i < 2; ++i)
      if (Status s = candidates[c]->launch(buffers); !s.ok()) return s.take_error();
    if (Status s = launch_for(*candidates[c], buffers, plan.warm_ms); !s.ok()) return s.take_error();
    const Clock::time_point start = Clock::now();
    if (Status s = candidates[c]->launch(buffers); !s.ok()) return s.take_error();
    const double one = std::max(ns_since(start), 1.0);
    out[c].launches_per_unit = static_cast<int>(std::clamp(std::ceil(plan.unit_us * 1e3 / one), 1.0, 1e6));
    const double unit_ns = one * out[c].launches_per_unit;
    out[c].units_per_sample = static_cast<int>(std::clamp(std::ceil(plan.min_sample_ms * 1e6 / unit_ns), 1.0, 1e5));
    settle(c);
  }
  std::vector<double> units;
  for (int r = 0; r < plan.rounds; ++r) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      const size_t c = (i + static_cast<size_t>(r)) % candidates.size();
      const StubCandidate& cand = *candidates[c];
      Measurement& m = out[c];
      if (Status s = launch_for(cand, buffers, plan.warm_ms); !s.ok()) return s.take_error();
      units.clear();
      for (int u = 0; u < m.units_per_sample; ++u) {
        const Clock::time_point start = Clock::now();
        for (int l = 0; l < m.launches_per_unit; ++l)
          if (Status s = cand.launch(buffers); !s.ok()) return s.take_error();
        units.push_back(ns_since(start) / m.launches_per_unit);
      }
      m.samples_ns.push_back(median(units));
      settle(c);
    }
  }
  for (Measurement& m : out) m.median_ns = median(m.samples_ns);
  return out;
}

}  // namespace tsr
