// The closed XDNA manifest (DESIGN.md §5; docs/targets-xdna.md): the only
// kernels an xdna target admits, each with the NPU's three-buffer ABI
// (in0, in1, out). Anything else is refused by name, with the manifest listed.
#pragma once

#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr::xdna {

// The arches the registry accepts: Phoenix/Hawk Point (npu1) and Strix (npu4).
const std::vector<std::string>& xdna_arch_names();

// "" when `spec` is one of the manifest's kernels exactly, otherwise the
// refusal: what differs, then the whole manifest.
std::string manifest_refusal(const KernelSpec& spec);

// The manifest as one line per entry, e.g. "bf16_add_1024: elementwise [add] ...".
std::string manifest_text();

}  // namespace tsr::xdna
