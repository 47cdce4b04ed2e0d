// The ABI pass: every artifact a job holds, compiled, tuned or from the
// compile cache, checked by its target (Target::check_abi) before a launch.
#include "driver/pass_state.h"

namespace tsr {

void check_abi_pass(PassState& state) {
  for (JobState& s : state.states) {
    if (!s.artifact || !s.artifact->ok()) continue;
    const PassClock::time_point start = PassClock::now();
    Status checked = s.job->impl->check_abi(*s.job->spec, **s.artifact);
    s.row.compile_ms += ms_since(start);
    if (!checked) s.artifact = Expected<Artifact>(checked.take_error());
  }
}

}  // namespace tsr
