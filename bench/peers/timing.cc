// Interleaved medians: on a host shared with other work, every contender sees
// the same load in each round, and medians ignore a round hit by a burst.
#include "timing.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace tsr::bench {

namespace {

double timed_call(const Contender& c) {
  const auto start = std::chrono::steady_clock::now();
  c.run();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (c.quiet_after_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(c.quiet_after_s));
  return s;
}

}  // namespace

std::vector<double> median_seconds(int repeats, const std::vector<Contender>& contenders) {
  const size_t n = contenders.size();
  for (const Contender& c : contenders) (void)timed_call(c);
  std::vector<std::vector<double>> samples(n);
  for (int r = 0; r < repeats; ++r)
    for (size_t i = 0; i < n; ++i) {
      const size_t which = (static_cast<size_t>(r) + i) % n;
      samples[which].push_back(timed_call(contenders[which]));
    }
  std::vector<double> medians;
  for (std::vector<double>& s : samples) {
    std::sort(s.begin(), s.end());
    medians.push_back(s[s.size() / 2]);
  }
  return medians;
}

}  // namespace tsr::bench
