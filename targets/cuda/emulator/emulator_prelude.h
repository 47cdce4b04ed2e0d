// The emulation prelude: a header force-included (clang -include) before the
// emitted CUDA C++ when the CPU emulator builds it as host C++. It maps the
// CUDA C++ keywords and built-ins the emitters use onto host C++, and defines
// every GPU primitive of targets/cuda/cuda_primitives.h as a call into the
// emulator (emulator_abi.h). docs/emulator.md lists what is emulated.
#pragma once

#include <string>

#include "spec/abi.h"
#include "spec/kernel_spec.h"

namespace tsr::cuda::emu {

// The header text (CUDA keywords, special registers, primitives).
std::string emulation_prelude();

// Appended after the emitted source: `tsr_emu_entry(void* const* args)` calls
// the kernel with the ABI's buffers and scalars, and `tsr_emu_shared_range`
// reports the block's static shared memory.
std::string emulation_entry(const KernelSpec& spec);

}  // namespace tsr::cuda::emu
