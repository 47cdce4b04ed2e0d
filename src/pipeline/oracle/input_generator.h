// Seeded, platform-independent input generation for the oracle. The value
// transforms are our own (not <random> distributions, whose outputs differ
// between standard libraries), so a printed seed reproduces anywhere.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

enum class Distribution { uniform, normal, large, tiny };
const char* distribution_name(Distribution d);
const std::vector<Distribution>& all_distributions();

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();          // splitmix64
  double uniform01();       // [0, 1)
  double normal();          // Box-Muller
 private:
  uint64_t state_;
};

// Values for one input buffer, already rounded to the storage dtype.
std::vector<double> generate_values(const KernelSpec& spec, const std::string& binding, int64_t count,
                                    Distribution dist, const std::map<std::string, int64_t>& scalars, Rng& rng);

// The oracle runs kTrialCount trials; trial i draws its inputs from
// trial_distribution(i) and its runtime sizes from trial_scalars(spec, i).
constexpr int kTrialCount = 6;
Distribution trial_distribution(int trial);

// Runtime scalar values for trial `trial`. Across the trials every runtime
// dimension takes odd sizes that are multiples of no vector width or tile,
// multiples of 8, 16, 32 and 128 (the aligned and vectorized paths, e.g.
// cp.async), size 1, and a matmul K that is a multiple of 8 but not of 32
// (partial-K tiles) — docs/oracle.md, "Trials".
std::map<std::string, int64_t> trial_scalars(const KernelSpec& spec, int trial);

}  // namespace tsr
