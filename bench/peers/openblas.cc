// OpenBLAS 0.3.21, DYNAMIC_ARCH: the kernel set ("core") is chosen by
// driver/others/dynamic.c when the library loads, overridable only through
// the OPENBLAS_CORETYPE environment variable read at that moment, hence the
// re-execution. Names it accepts are its `corename` table (Prescott ...
// Haswell, SkylakeX, Cooperlake; no SapphireRapids before 0.3.22).
#include "openblas.h"

#include <cblas.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "cpu.h"

namespace tsr::bench {

namespace {

// Set across the re-execution: what the core was before it, and where it came from.
constexpr const char* kBeforeVar = "TSR_BENCH_OPENBLAS_BEFORE";

// The best core 0.3.21 has for this CPU, and whether `core` is at least as good.
const char* best_core(const CpuCaps& caps) {
  if (caps.avx512_bf16) return "Cooperlake";
  if (caps.avx512) return "SkylakeX";
  if (caps.avx2_fma) return "Haswell";
  return nullptr;
}

bool at_least(const char* core, const char* best) {
  auto any_of = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (strcasecmp(core, n) == 0) return true;
    return false;
  };
  if (strcasecmp(best, "Cooperlake") == 0) return any_of({"Cooperlake"});
  if (strcasecmp(best, "SkylakeX") == 0) return any_of({"SkylakeX", "Cooperlake"});
  return any_of({"Haswell", "Zen", "SkylakeX", "Cooperlake"});
}

}  // namespace

// An OPENBLAS_CORETYPE already in the environment is kept when it is at
// least the best core, and overridden (and said) when weaker: a peer pinned
// below what the CPU runs is not a fair peer.
void openblas_pin_best_kernels(char** argv) {
  if (std::getenv(kBeforeVar)) return;   // this is the re-executed program
  const char* best = best_core(cpu_caps());
  const char* core = openblas_get_corename();
  if (!best || at_least(core, best)) return;
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  const std::string before = env ? std::string("OPENBLAS_CORETYPE=") + env + " in the environment ran " + core
                                 : std::string("its own detection chose ") + core;
  setenv(kBeforeVar, before.c_str(), 1);
  setenv("OPENBLAS_CORETYPE", best, 1);
  std::fflush(stdout);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "x86_vs_peers: re-exec with OPENBLAS_CORETYPE=%s failed: %s; OpenBLAS stays on %s\n", best,
               std::strerror(errno), core);
  unsetenv(kBeforeVar);
}

std::string openblas_description() {
  std::string how;
  const char* pinned = std::getenv("OPENBLAS_CORETYPE");
  const char* before = std::getenv(kBeforeVar);
  if (before)
    how = std::string(before) + "; pinned to the best for this CPU with OPENBLAS_CORETYPE=" + pinned;
  else if (pinned)
    how = std::string("OPENBLAS_CORETYPE=") + pinned + " from the environment, the best for this CPU";
  else
    how = "its own detection, the best for this CPU";
  std::string s = std::string("OpenBLAS ") + openblas_get_config() + "; core " + openblas_get_corename() + " (" + how + ")";
  if (const char* l2 = std::getenv("OPENBLAS_L2_SIZE")) s += std::string("; OPENBLAS_L2_SIZE=") + l2 + " from the environment";
  return s;
}

void openblas_threads(int threads) { openblas_set_num_threads(threads); }

void openblas_sgemm(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), 1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c, static_cast<int>(n));
}

}  // namespace tsr::bench
