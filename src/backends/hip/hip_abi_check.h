// ABI check of AMDGPU code objects against the spec's ABI (LLVM AMDGPUUsage:
// "Code Object V4/V5 Metadata", the NT_AMDGPU_METADATA note: name "AMDGPU",
// type 32, a MessagePack map). A mismatch is an internal error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/abi.h"
#include "support/error.h"
#include "hip/hip_archs.h"

namespace tsr::hip {

struct KernargInfo {
  uint64_t size = 0;
  uint64_t offset = 0;
  std::string value_kind;   // "global_buffer", "by_value", "hidden_*"
};

struct CodeObjectKernel {
  std::string name;         // .name
  std::string symbol;       // .symbol, the kernel descriptor: name + ".kd"
  uint64_t kernarg_segment_size = 0;
  uint64_t wavefront_size = 0;     // .wavefront_size: 64 (wave64) or 32 (wave32)
  std::vector<KernargInfo> args;   // .args, in order
};

struct CodeObjectMetadata {
  std::string target;       // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx90a" or "...--gfx90a:xnack-"
  std::vector<CodeObjectKernel> kernels;
};

// The metadata note of an ELF code object (EM_AMDGPU); an error when the ELF,
// the note or the MessagePack map is malformed or lacks a required field.
Expected<CodeObjectMetadata> read_code_object_metadata(const std::vector<uint8_t>& code_object);

// The code object must target exactly `arch` (amdhsa.target
// "amdgcn-amd-amdhsa--<gfx>" with no xnack/sramecc suffix: the artifact is
// recorded, and matched by the stub, as that gfx with both features "any").
// The kernel `entry` must exist with symbol entry.kd and the arch's wavefront
// size, its explicit arguments one per binding in order, each 8 bytes at
// offset 8*i: global_buffer for a buffer, by_value for a scalar (int64).
// clang's hidden_* arguments may follow; the kernarg segment must hold the
// explicit ones.
Status check_code_object_abi(const std::vector<uint8_t>& code_object, const HipArch& arch, const std::string& entry,
                             const KernelAbi& abi);

}  // namespace tsr::hip
