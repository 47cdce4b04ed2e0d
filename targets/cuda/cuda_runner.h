// Loads cuda artifacts on a present device and launches them (CUDA Driver API
// reference: module management, execution control, events).
#pragma once

#include <string>

#include "targets/cuda/cuda_driver.h"
#include "targets/target.h"

namespace tsr::cuda {

// The device an artifact for `arch` runs on: the exact compute capability for
// sm_XY (a cubin runs only there), any device of sm_80 or newer for "ptx"
// (the driver JIT-compiles the compute_80 PTX). nullptr when none.
const CudaDeviceDesc* pick_device(const CudaDriver& driver, const std::string& arch);

DeviceInfo cuda_device_info(const std::string& arch);

// Copies inputs, launches once (skipped when a grid dimension is 0), copies outputs back.
Status run_cuda_artifact(const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args);

// Median milliseconds of `reps` launches timed one by one with CUDA events
// after `warmup` untimed launches. Outputs are not copied back.
Expected<double> time_cuda_artifact(const KernelSpec& spec, const Artifact& artifact, const LaunchArgs& args,
                                    int warmup, int reps);

}  // namespace tsr::cuda
