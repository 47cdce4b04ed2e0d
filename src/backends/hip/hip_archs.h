// The AMD GPU architectures the hip target builds for, and the two facts the
// emitter needs about each (AMD ISA references: CDNA2 for gfx90a, CDNA3 for
// gfx940, RDNA2 for gfx1030, RDNA3 for gfx1100): the wavefront size and
// whether the installed toolchain has a matrix-core (MFMA) instruction for it.
#pragma once

#include <string>
#include <vector>

namespace tsr::hip {

struct HipArch {
  std::string name;    // "gfx90a": the clang --offload-arch processor
  int wave_size;       // 64 on gfx9 (CDNA), 32 on gfx10/gfx11 (RDNA, wave32 is clang's default there)
  bool has_mfma;       // v_mfma_* on CDNA (gfx90a, gfx940); RDNA has none
};

// gfx90a, gfx940, gfx1030, gfx1100, in that order.
const std::vector<HipArch>& hip_archs();
std::vector<std::string> hip_arch_names();

// The listed arch, or nullptr.
const HipArch* find_hip_arch(const std::string& name);

}  // namespace tsr::hip
