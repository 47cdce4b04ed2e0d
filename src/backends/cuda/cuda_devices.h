// The CUDA devices present, as the compiler reports them (`tesserac targets`,
// Target::device): read through the runtime stub's one CUDA driver loader
// (runtime-stub/src/backend_cuda_driver.c). Launching is the stub's too: the
// oracle runs cuda artifacts through libtesserart (launch/stub_launcher.h).
#pragma once

#include <string>

#include "target/target.h"

namespace tsr::cuda {

// Whether an artifact for `arch` runs on a device of compute capability `cc`
// (major*10+minor): a cubin (sm_XY) only on exactly XY, the compute_80 PTX
// ("ptx") on 80 or newer; the stub's selection rule (docs/runtime.md).
bool arch_runs_on(const std::string& arch, int cc);

// The first device `arch` runs on, with its ordinal, or absent and why:
// "no CUDA driver (libcuda.so.1 not found)", "no CUDA device", "CUDA driver
// present but cuInit failed: ...", "no CUDA device for sm_90 (present: ...)".
DeviceInfo cuda_device_info(const std::string& arch);

}  // namespace tsr::cuda
