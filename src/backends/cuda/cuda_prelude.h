// The CUDA dialect's prelude: the header comment, the inline-PTX primitives
// the kernel needs (cuda_primitives.h), the storage dtype's loads and stores
// and, for rowwise, the 32-lane block reductions (gpu/gpu_emit_common.h).
#pragma once

#include <string>

#include "spec/kernel_spec.h"

namespace tsr::cuda {

std::string prelude(const KernelSpec& spec);

}  // namespace tsr::cuda
