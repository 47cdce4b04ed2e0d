// CPUID leaf 1 (ECX: FMA bit 12, OSXSAVE 27, AVX 28), leaf 7 subleaf 0 (EBX:
// AVX2 5, AVX512F 16, DQ 17, CD 28, BW 30, VL 31; EDX: AMX-BF16 22, AMX-TILE
// 24), leaf 7 subleaf 1 (EAX: AVX512_BF16 5); XCR0 bits 1-2 (xmm, ymm), 5-7
// (opmask, zmm), 17-18 (tile config, tile data).
#include "cpu.h"

#include <cpuid.h>
#include <sched.h>

#include <cstdint>

namespace tsr::bench {

namespace {

bool bit(unsigned reg, int n) { return (reg >> n) & 1u; }

uint64_t xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

}  // namespace

CpuCaps cpu_caps() {
  CpuCaps caps;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !bit(c, 27)) return caps;   // no OSXSAVE: no xgetbv
  const bool fma = bit(c, 12), avx = bit(c, 28);
  const uint64_t x = xcr0();
  const bool os_ymm = (x & 0x6) == 0x6, os_zmm = os_ymm && (x & 0xe0) == 0xe0, os_tiles = (x & 0x60000) == 0x60000;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return caps;
  caps.avx2_fma = avx && fma && bit(b, 5) && os_ymm;
  caps.avx512 = caps.avx2_fma && os_zmm && bit(b, 16) && bit(b, 17) && bit(b, 28) && bit(b, 30) && bit(b, 31);
  caps.amx = os_tiles && bit(d, 24) && bit(d, 22);
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  if (__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1)) caps.avx512_bf16 = caps.avx512 && bit(a1, 5);
  return caps;
}

int cpu_count() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

}  // namespace tsr::bench
