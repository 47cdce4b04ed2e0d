// The AMD GPUs present, as the compiler reports them (`tesserac targets`,
// Target::device): read through the runtime stub's one HIP runtime loader
// (runtime-stub/src/backend_hip_runtime.c), so the compiler and libtesserart
// see the same runtime, the same devices and the same target-ID rule.
#pragma once

#include <string>

#include "target/target.h"

namespace tsr::hip {

// The first device whose gcnArchName runs code built for `arch` (features
// "any"), with its ordinal, or absent and why: the stub's reason ("no AMD
// GPU: libamdhip64 not found (...)", "no AMD GPU: hipGetDeviceCount reports
// 0 (...)") or "no AMD GPU for gfx90a (present: ...)".
DeviceInfo hip_device_info(const std::string& arch);

}  // namespace tsr::hip
