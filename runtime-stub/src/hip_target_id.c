/* Target-ID matching (LLVM AMDGPUUsage, "Target ID"; docs/targets-hip.md,
 * "Selection"): whether code built for one target ID runs on a device that
 * reports another. Pure text, so the compiler has it without the HIP backend. */
#include <string.h>

#include "tesserart_compiler.h"

/* Whether `feature` ("xnack+") appears in the ":"-list `list` with its sign. */
static int has_feature(const char* list, const char* feature, size_t n) {
  while (*list == ':') {
    size_t m = strcspn(++list, ":");
    if (m == n && strncmp(list, feature, n) == 0) return 1;
    list += m;
  }
  return 0;
}

int tsr_hip_target_id_match(const char* device_id, const char* code_id) {
  size_t pd = strcspn(device_id, ":"), pc = strcspn(code_id, ":");
  int features = 0;
  if (pd == 0 || pd != pc || strncmp(device_id, code_id, pd) != 0) return -1;
  /* A feature the code states (+ or -) must be the device's; one it omits is "any". */
  for (const char* f = code_id + pc; *f == ':'; ++features) {
    size_t n = strcspn(++f, ":");
    if (n < 2 || (f[n - 1] != '+' && f[n - 1] != '-') || !has_feature(device_id + pd, f, n)) return -1;
    f += n;
  }
  return features;
}
