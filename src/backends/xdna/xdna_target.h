// AMD XDNA NPU target (xdna:npu1, xdna:npu4): the closed manifest, device
// artifacts from an AIE toolchain packed into an xclbin (XRT's xrt/xclbin.h),
// launched by libtesserart's XRT backend (backend_xrt.c). docs/targets-xdna.md.
#pragma once

#include <memory>

#include "target/target.h"

namespace tsr {

std::unique_ptr<Target> make_xdna_target();

}  // namespace tsr
