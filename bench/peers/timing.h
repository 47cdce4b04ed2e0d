// Timing of several contenders on one machine state (docs/performance.md, "x86").
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tsr::bench {

struct Contender {
  std::string name;
  std::function<void()> run;
  // Seconds to leave the machine idle after a call: peers whose idle threads
  // spin (OpenBLAS's pthread server, libgomp) would otherwise take cycles
  // from whichever contender runs next.
  double quiet_after_s = 0;
};

// One warm-up call of each, then `repeats` rounds calling every contender
// once, the starting contender rotating per round so none always follows the
// same one; returns each contender's median seconds, in input order.
std::vector<double> median_seconds(int repeats, const std::vector<Contender>& contenders);

}  // namespace tsr::bench
