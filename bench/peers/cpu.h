// What this CPU and OS can run, from CPUID and XCR0 (Intel SDM vol. 2A,
// "CPUID"; vol. 1 §13 for XCR0), for choosing the peers' kernel sets.
#pragma once

namespace tsr::bench {

struct CpuCaps {
  bool avx2_fma = false;      // AVX2 + FMA with the OS saving ymm
  bool avx512 = false;        // AVX-512 F/CD/BW/DQ/VL with the OS saving zmm and k
  bool avx512_bf16 = false;   // vdpbf16ps
  bool amx = false;           // AMX-TILE + AMX-BF16 with the OS's tile state enabled in XCR0
};

CpuCaps cpu_caps();

// The processors this process may run on (its affinity mask).
int cpu_count();

}  // namespace tsr::bench
