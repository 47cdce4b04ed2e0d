// AMD HIP target: HIP C++ compiled by clang (-x hip --cuda-device-only) to a
// code object per gfx arch, launched by libtesserart (backend_hip.c).
#pragma once

#include <memory>

#include "target/target.h"

namespace tsr {

std::unique_ptr<Target> make_hip_target();

}  // namespace tsr
