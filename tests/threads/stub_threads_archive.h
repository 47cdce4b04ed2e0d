// The archive the thread-safety scenarios (stub_threads.h) run on: four x86
// kernels vadd1..vadd4, out = in0 + f * in1 with f in the name, so a launch
// shows which kernel ran. Built from the shared vadd_object, the one place
// test kernels follow the x86 kernel ABI.
#pragma once

#include <string>

#include "../unit/archive_test_support.h"

namespace tsr::testing {

inline ArchiveContents threads_contents() {
  const ArchiveKernel vadd = sample_contents().kernels[0];   // its ABI: in0[n], in1[n] -> out[n]
  ArchiveContents c;
  c.metadata = {{"build.profile", "threads-test"}};
  for (int f = 1; f <= 4; ++f) {
    ArchiveKernel k = vadd;
    k.name = "vadd" + std::to_string(f);
    k.identity = std::string(63, '0') + std::to_string(f);
    // Every kernel's entry is vadd_tsr_entry, the symbol vadd_object exports.
    k.variants = {x86_artifact("vadd", "v1", vadd_object(f))};
    k.verdicts.clear();
    c.kernels.push_back(k);
  }
  return c;
}

}  // namespace tsr::testing
