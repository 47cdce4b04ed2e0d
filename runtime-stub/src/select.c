/* Variant selection across backends. Each backend picks the best variant of
 * its own kind (backend_*.c); this file walks them in preference order
 * (backends.c) and asks only those the kernel has variants for, so an
 * archive with only x86 variants never initializes a GPU driver. */
#include "tsr_internal.h"

int tsr_select_wants_kind(const tsr_select_options* o, const char* kind) {
  return !o || !o->target_kind || strcmp(o->target_kind, kind) == 0;
}

int tsr_select_wants_arch(const tsr_select_options* o, const char* arch) {
  return !o || !o->arch || strcmp(o->arch, arch) == 0;
}

int tsr_kernel_has_kind(const tsr_archive* a, size_t kernel, const char* kind) {
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return 0;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) == TSR_OK && strcmp(vi.target_kind, kind) == 0) return 1;
  }
  return 0;
}

tsr_status tsr_kernel_select(tsr_archive* a, size_t kernel, const tsr_select_options* o,
                             tsr_selection* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  if (kernel >= a->kern.count) return TSR_ERROR_INVALID_ARGUMENT;
  if (o && o->device < 0) return TSR_ERROR_INVALID_ARGUMENT;
  tsr_status s = tsr_kernel_check(a, kernel, TSR_MSG(TSR_MSG_ARCHIVE, a));
  if (s != TSR_OK) return s;
  int asked = 0, device_seen = 0;
  for (size_t b = 0; b < tsr_backend_count; ++b) {
    const tsr_backend* backend = tsr_backends[b];
    if (!tsr_select_wants_kind(o, backend->kind) || !tsr_kernel_has_kind(a, kernel, backend->kind)) continue;
    size_t v = 0;
    const char* route = NULL;
    asked = 1;
    s = backend->select(a, kernel, o, &v, &route);
    if (s == TSR_OK) {
      tsr_variant_info vi;
      if ((s = tsr_kernel_variant_at(a, kernel, v, &vi)) != TSR_OK) return s;
      out->variant = v;
      out->target_kind = vi.target_kind;
      out->arch = vi.arch;
      out->route = route;
      return TSR_OK;
    }
    if (s != TSR_ERROR_NO_DEVICE) device_seen = 1;
  }
  /* NO_DEVICE only when every kind the kernel has lacks its device. */
  return asked && !device_seen ? TSR_ERROR_NO_DEVICE : TSR_ERROR_NO_VARIANT;
}
