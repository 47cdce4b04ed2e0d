// Helpers for the generated-candidate seam of src/backends/target/target.h, shared by the
// targets that offer tunables.
#pragma once

#include <string>
#include <vector>

#include "target/target.h"

namespace tsr {

// "default, mr4.nv2.kc256.mc64, ...": the names, in order, for diagnostics.
std::string candidate_names(const std::vector<GeneratedCandidate>& candidates);

// The candidate of that name among target.generated_candidates(spec, arch),
// or invalid input naming the known ones.
Expected<GeneratedCandidate> find_generated_candidate(const Target& target, const KernelSpec& spec,
                                                      const std::string& arch, const std::string& name);

// The integer value of one tunable, or `fallback` where the candidate has none.
int candidate_tunable(const GeneratedCandidate& candidate, const std::string& key, int fallback);

}  // namespace tsr
