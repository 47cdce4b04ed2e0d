// A Target whose run() launches through the runtime stub from an archive, so
// the oracle checks exactly what an application calling tsr_kernel_launch
// gets: the shipped bytes, the stub's selection and its ABI validation.
#pragma once

#include <memory>
#include <string>

#include "targets/target.h"

struct tsr_archive;

namespace tsr {

// `inner` supplies everything but run() (device presence, budget floor).
// run() loads spec.name from `archive`, restricted to `target`'s kind, and
// fails unless the stub selects exactly `target` (kind and arch).
std::unique_ptr<Target> make_stub_routed_target(const Target& inner, tsr_archive* archive, const TargetName& target);

}  // namespace tsr
