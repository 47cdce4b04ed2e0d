// NVIDIA CUDA target: CUDA C++ compiled in process by NVRTC to PTX (PTX ISA),
// assembled to cubins by nvJitLink, run through the CUDA driver API.
#pragma once

#include <memory>

#include "target/target.h"

namespace tsr {

std::unique_ptr<Target> make_cuda_target();

}  // namespace tsr
