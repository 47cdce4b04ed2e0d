// The GPU primitives of the emitted CUDA C++ (PTX ISA 8.x: cvt, cvta, cp.async,
// ldmatrix, mma; CUDA C++ Programming Guide: warp shuffle, __syncthreads): every
// hardware-specific operation an emitter uses is one named __device__ function
// defined here, and nowhere else in emitted code is there inline assembly. The
// definitions sit inside `#ifndef TSR_EMULATED`: NVRTC compiles them as inline
// PTX; the CPU emulator (src/backends/emulator/, docs/emulator.md) compiles the
// same source with TSR_EMULATED and supplies C++ definitions of the same names.
#pragma once

#include <string>

#include "spec/kernel_spec.h"

namespace tsr::cuda {

// Which groups of primitives a kernel needs; only those are written, so each
// emitted file stays readable.
struct PrimitiveSet {
  bool half_conversions = false;   // f16/bf16 storage
  bool warp_shuffle = false;       // warp reductions
  bool tensor_core = false;        // cp.async, ldmatrix, mma.sync m16n8k16
  bool dynamic_shared = false;     // tsr_dynamic_shared(): cuda.shared_bytes of dynamic shared memory
};

PrimitiveSet primitives_for(const KernelSpec& spec);

// The primitive definitions as one `#ifndef TSR_EMULATED` block. Global
// memory idioms and the barrier are always present. `mma_type` is bf16 or f16
// for the tensor-core group.
std::string primitives_source(const PrimitiveSet& set, DType storage);

}  // namespace tsr::cuda
