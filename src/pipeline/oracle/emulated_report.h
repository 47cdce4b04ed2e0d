// The oracle over an emulated build of a GPU target's source: the emulator
// (emulator/emulator.h) is a compile step (the emulated target) and a
// Launcher (EmulatorLauncher) that know no oracle; this joins them.
#pragma once

#include <string>

#include "emulator/emulator.h"
#include "oracle/oracle.h"

namespace tsr::cuda::emu {

// The oracle over an emulated build of `source`. `evidence` is PASS_EMULATED,
// FAIL or NOT_RUN (verdict_name of the report's verdict); never PASS, since
// the emulated target's device is DeviceInfo::emulated.
struct EmulatedReport {
  OracleReport oracle;
  std::string evidence;
  std::string toolchain;   // "clang <version>" that built the module; empty when none did
};
EmulatedReport emulate_oracle(const KernelSpec& spec, const std::string& arch, const std::string& source,
                              const OracleOptions& options = {}, const EmulatorOptions& emulator = {});
// The same over any emulated target (make_emulated_cuda_target,
// hip::make_emulated_hip_target, Target::make_emulated).
EmulatedReport emulate_oracle(const Target& emulated, const KernelSpec& spec, const std::string& arch,
                              const std::string& source, const OracleOptions& options = {},
                              const EmulatorOptions& emulator = {});

}  // namespace tsr::cuda::emu
