// An xclbin (AMD/Xilinx "axlf" container, XRT's xrt/xclbin.h) for one NPU
// kernel: deterministic bytes (no timestamp; the UUID is derived from the
// content with SHA-256). Layout: docs/targets-xdna.md, "xclbin layout".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsr::xdna {

struct XclbinInput {
  std::string kernel;                  // the spec's kernel name: the xclbin's kernel and IP name
  std::string arch;                    // npu1 | npu4
  std::string image_kind;              // pdi | elf
  std::vector<uint8_t> image;          // the AIE toolchain's device image
  std::vector<uint8_t> instructions;   // the NPU instruction stream (section "npu_insts")
};

// The kernel's arguments in the order the NPU firmware passes them: the fixed
// control arguments (opcode, instr, ninstr), then the three-buffer ABI.
const std::vector<std::string>& xclbin_argument_names();

// The name of the USER_METADATA section that carries the instruction stream.
inline constexpr const char* kInstructionSectionName = "npu_insts";

std::vector<uint8_t> write_xclbin(const XclbinInput& input);

}  // namespace tsr::xdna
