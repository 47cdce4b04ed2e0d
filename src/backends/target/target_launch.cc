// Target::run's default: a real target is launched only through
// libtesserart (launch/stub_routed_target.h), never by a loader of its own.
#include "target/target.h"

namespace tsr {

Status Target::run(const KernelSpec& spec, const Artifact&, LaunchArgs&) const {
  return internal_error("internal: " + kind() + " kernel '" + spec.name +
                        "' must launch through libtesserart (make_in_memory_stub_target), not the " + kind() +
                        " target");
}

}  // namespace tsr
