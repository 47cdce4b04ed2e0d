// x86-64 target: C99 source compiled by clang for the x86-64 psABI
// microarchitecture levels v2, v3 (AVX2) and v4 (AVX-512).
#pragma once

#include <memory>

#include "target/target.h"

namespace tsr {

std::unique_ptr<Target> make_x86_target();

}  // namespace tsr
