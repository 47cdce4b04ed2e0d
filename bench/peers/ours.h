// Our kernels as an application runs them: built from a KernelSpec, loaded
// by libtesserart from an in-memory one-kernel archive, each call a
// tsr_kernel_launch with its ABI validation.
#pragma once

#include <memory>
#include <string>

#include "launch/stub_launcher.h"
#include "spec/kernel_spec.h"
#include "target/target.h"

namespace tsr::bench {

struct Compiled {
  KernelSpec spec;
  Artifact artifact;
  std::unique_ptr<StubLauncher> launcher;
  // Launches on the executor current now; false (said on stdout) on failure.
  bool run(LaunchArgs& args) const;
};

// Emits, compiles and loads; empty with the reason in `why` on failure.
std::unique_ptr<Compiled> compile(const Target& target, const KernelSpec& spec, const std::string& arch,
                                  std::string& why);

// Our side of "1 thread": an executor of one worker that runs every task on
// the calling thread. "All cores": libtesserart's default pool (one worker per
// CPU of the affinity mask; the bench never sets TSR_NUM_THREADS).
void ours_single_thread();
void ours_all_cores();
unsigned ours_workers();

}  // namespace tsr::bench
