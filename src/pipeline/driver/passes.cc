#include "driver/passes.h"

#include "driver/pass_state.h"

namespace tsr {

namespace {

struct Pass {
  const char* name;
  void (*run)(PassState&);
};

// Each pass reads what the passes above it wrote into the JobStates.
constexpr Pass kPasses[] = {
    // Rows, kernel identities and toolchains, computed once per job.
    {"identify", identify_pass},
    // --tune: the arbiter's measured variant replaces the default compile. It
    // runs before emit so the variant that ships is ABI-checked and qualified
    // like any other artifact (docs/architecture.md says why not after qualify).
    {"arbitrate", arbitrate_pass},
    // Source text per job: what the compile cache keys on and the emulator runs.
    {"emit", emit_pass},
    // Cache hits first, then the misses on --jobs threads, stored in job order.
    {"compile", compile_pass},
    // The artifact's bytes define what the ABI record says the stub calls,
    // cache hits included: nothing the ABI disagrees with reaches a launch.
    {"check-abi", check_abi_pass},
    // The oracle on present hardware or in the emulator, else NOT_RUN with why.
    {"qualify", qualify_pass},
};

}  // namespace

std::vector<VerdictRow> run_passes(const std::vector<Job>& jobs, const PassOptions& options) {
  PassState state{jobs, options, std::vector<JobState>(jobs.size())};
  for (size_t i = 0; i < jobs.size(); ++i) state.states[i].job = &jobs[i];
  for (const Pass& pass : kPasses) pass.run(state);
  std::vector<VerdictRow> rows;
  rows.reserve(state.states.size());
  for (JobState& job : state.states) rows.push_back(std::move(job.row));
  return rows;
}

std::vector<const char*> pass_names() {
  std::vector<const char*> names;
  for (const Pass& pass : kPasses) names.push_back(pass.name);
  return names;
}

}  // namespace tsr
