// The emulation prelude: a header force-included (clang -include) before the
// emitted CUDA C++ when the CPU emulator builds it as host C++. It maps the
// CUDA C++ keywords and built-ins the emitters use onto host C++, and defines
// every GPU primitive of src/backends/cuda/cuda_primitives.h as a call into the
// emulator (emulator_abi.h). docs/emulator.md lists what is emulated.
#pragma once

#include <string>
#include <vector>

#include "spec/abi.h"
#include "spec/kernel_spec.h"

namespace tsr::cuda::emu {

// Which emitted language the module is: the cuda target's CUDA C++ (its
// primitives become emulator calls) or the hip target's HIP C++ (its
// __builtin_amdgcn_* become emulator calls).
enum class EmulatedDialect { cuda, hip };

// The header text (keywords, special registers, primitives).
std::string emulation_prelude(EmulatedDialect dialect = EmulatedDialect::cuda);

// Appended after the emitted source: `tsr_emu_entry(void* const* args)` calls
// the kernel with the ABI's buffers and scalars, and `tsr_emu_shared_range`
// reports the block's static shared memory.
std::string emulation_entry(const KernelSpec& spec);

// The clang flags that instrument a kernel module for the emulator's checks
// (docs/emulator.md): ThreadSanitizer's access instrumentation feeds racecheck
// and the memcheck of plain accesses; UBSan's array-bounds check catches an
// index outside a declared array (shared or local). Both call hooks the
// prelude defines; no sanitizer runtime is linked.
std::vector<std::string> emulation_check_flags();

}  // namespace tsr::cuda::emu
