#include "oracle/emulated_report.h"

namespace tsr::cuda::emu {

EmulatedReport emulate_oracle(const KernelSpec& spec, const std::string& arch, const std::string& source,
                              const OracleOptions& options, const EmulatorOptions& emulator) {
  return emulate_oracle(*make_emulated_cuda_target(), spec, arch, source, options, emulator);
}

EmulatedReport emulate_oracle(const Target& emulated, const KernelSpec& spec, const std::string& arch,
                              const std::string& source, const OracleOptions& options,
                              const EmulatorOptions& emulator) {
  EmulatedReport r;
  Expected<Artifact> art = emulated.compile(spec, arch, source);
  if (!art) {
    r.oracle = not_run(art.error().message(), spec, options.seed);
  } else {
    r.oracle = run_oracle(spec, EmulatorLauncher(emulated, emulator), *art, options);
    r.toolchain = art->toolchain;
  }
  r.evidence = verdict_name(r.oracle.verdict);
  return r;
}

}  // namespace tsr::cuda::emu
