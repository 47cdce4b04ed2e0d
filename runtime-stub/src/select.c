/* Variant selection: x86-64 psABI levels (detected in cpu_x86.c), CUDA
 * compute capability with PTX fallback, AMD gfx name, XDNA NPU name. Preference across kinds: cuda, hip, xdna, x86. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_cpu_x86.h"
#include "tsr_internal.h"

int tsr_x86_level(void) { return tsr_x86_features() & 0xff; }

/* "v3" -> 6, "v4+amx" -> 9, anything else -> -1. */
static int x86_arch_score(const char* arch) {
  if (arch[0] != 'v' || arch[1] < '1' || arch[1] > '4') return -1;
  int level = arch[1] - '0';
  if (arch[2] == 0) return level * 2;
  if (strcmp(arch + 2, "+amx") == 0) return level * 2 + 1;
  return -1;
}

static int wants(const tsr_select_options* o, const char* kind) {
  return !o || !o->target_kind || strcmp(o->target_kind, kind) == 0;
}

/* Best variant of one kind; -1 when none fits. */
static long best_of_kind(const tsr_archive* a, size_t kernel, const char* kind, const char* exact,
                         tsr_artifact_kind artifact, int x86_feat) {
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return -1;
  long best = -1;
  int best_score = -1;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) != TSR_OK) continue;
    if (strcmp(vi.target_kind, kind) != 0 || vi.artifact_kind != artifact) continue;
    if (exact) {
      if (strcmp(vi.arch, exact) == 0) return (long)v;
      continue;
    }
    int score = x86_arch_score(vi.arch);
    int level = x86_feat & 0xff, amx = x86_feat >> 8 & 1;
    if (score < 0 || score / 2 > level || ((score & 1) && !amx)) continue;
    if (score > best_score) {
      best_score = score;
      best = (long)v;
    }
  }
  return best;
}

static tsr_status fill(const tsr_archive* a, size_t kernel, long v, const char* route, tsr_selection* out) {
  tsr_variant_info vi;
  tsr_status s = tsr_kernel_variant_at(a, kernel, (size_t)v, &vi);   /* read by best_of_kind already */
  if (s != TSR_OK) return s;
  out->variant = (size_t)v;
  out->target_kind = vi.target_kind;
  out->arch = vi.arch;
  out->route = route;
  return TSR_OK;
}

tsr_status tsr_kernel_select(tsr_archive* a, size_t kernel, const tsr_select_options* o,
                             tsr_selection* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  if (kernel >= a->kern.count) return TSR_ERROR_INVALID_ARGUMENT;
  tsr_status checked = tsr_kernel_check(a, kernel, a->message, sizeof a->message);
  if (checked != TSR_OK) return checked;
  int device_seen = 0;
  long v;
  char name[64];
  int cc = 0;
  if (wants(o, "cuda") && tsr_cuda_probe(&cc) == TSR_OK) {
    device_seen = 1;
    snprintf(name, sizeof name, "sm_%d", cc);
    if ((v = best_of_kind(a, kernel, "cuda", name, TSR_ARTIFACT_CUBIN, 0)) >= 0)
      return fill(a, kernel, v, "cubin", out);
    if ((v = best_of_kind(a, kernel, "cuda", "ptx", TSR_ARTIFACT_PTX, 0)) >= 0)
      return fill(a, kernel, v, "ptx-jit", out);
  }
  if (wants(o, "hip") && tsr_hip_probe(name, sizeof name) == TSR_OK) {
    device_seen = 1;
    if ((v = best_of_kind(a, kernel, "hip", name, TSR_ARTIFACT_CODE_OBJECT, 0)) >= 0)
      return fill(a, kernel, v, "code_object", out);
  }
  if (wants(o, "xdna") && tsr_xrt_probe(name, sizeof name) == TSR_OK) {
    device_seen = 1;
    if ((v = best_of_kind(a, kernel, "xdna", name, TSR_ARTIFACT_XCLBIN, 0)) >= 0)
      return fill(a, kernel, v, "xclbin", out);
  }
  int feat = o && o->x86_level ? o->x86_level : tsr_x86_features();
  if (wants(o, "x86") && (feat & 0xff) > 0) {
    device_seen = 1;
    if ((v = best_of_kind(a, kernel, "x86", NULL, TSR_ARTIFACT_SHARED_OBJECT, feat)) >= 0)
      return fill(a, kernel, v, "memfd+dlopen", out);
  }
  return device_seen ? TSR_ERROR_NO_VARIANT : TSR_ERROR_NO_DEVICE;
}
