/* Variant selection across backends. Each backend picks the best variant of
 * its own kind (backend_*.c); this file walks them in preference order
 * (backends.c) and asks only those the kernel has variants for, so an
 * archive with only x86 variants never initializes a GPU driver. Within a
 * kind, the receipt policy (tsr_backend_select) prefers, or requires, a
 * variant with a hardware receipt bound to its exact bytes. */
#include <stdlib.h>

#include "tsr_internal.h"

int tsr_select_wants_kind(const tsr_select_options* o, const char* kind) {
  return !o || !o->target_kind || strcmp(o->target_kind, kind) == 0;
}

int tsr_select_wants_variant(const tsr_select_options* o, const struct tsr_archive* a, size_t kernel,
                             size_t v, const char* arch) {
  if (!o) return 1;
  if (o->arch && strcmp(o->arch, arch) != 0) return 0;
  return o->require_qualified <= 0 || tsr_variant_qualified(a, kernel, tsr_variant_rec(a, kernel, v, NULL));
}

tsr_status tsr_backend_select(const tsr_backend* b, const struct tsr_archive* a, size_t kernel,
                              const tsr_select_options* o, size_t* out_variant, const char** out_route) {
  tsr_select_options q = {0};
  if (o) q = *o;
  const char* env = getenv("TSR_REQUIRE_QUALIFIED");
  const int required = q.require_qualified > 0 || (q.require_qualified == 0 && env && strcmp(env, "1") == 0);
  uint32_t first;
  /* Qualified variants first: a qualified x86:v3 runs before an unqualified x86:v4. */
  q.require_qualified = 1;
  tsr_status s = tsr_kernel_receipts(a, kernel, &first) ? b->select(a, kernel, &q, out_variant, out_route)
                                                        : TSR_ERROR_NO_VARIANT;
  if (s != TSR_ERROR_NO_VARIANT) return s;
  q.require_qualified = o && o->require_qualified < 0 ? -1 : 0;   /* -1 reaches backends that admit by receipt (xdna) */
  s = b->select(a, kernel, &q, out_variant, out_route);
  return s == TSR_OK && required ? TSR_ERROR_NOT_QUALIFIED : s;
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
  long refused = -1;   /* the first variant the receipt policy refused */
  for (size_t b = 0; b < tsr_backend_count; ++b) {
    const tsr_backend* backend = tsr_backends[b];
    if (!tsr_select_wants_kind(o, backend->kind) || !tsr_kernel_has_kind(a, kernel, backend->kind)) continue;
    size_t v = 0;
    const char* route = NULL;
    asked = 1;
    s = tsr_backend_select(backend, a, kernel, o, &v, &route);
    if (s == TSR_ERROR_NOT_QUALIFIED && refused < 0) refused = (long)v;
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
  if (refused >= 0) {
    const uint8_t* vr = tsr_variant_rec(a, kernel, (size_t)refused, NULL);
    tsr_set_message(TSR_MSG(TSR_MSG_ARCHIVE, a), "kernel '%s': variant %s:%s has no hardware receipt, and "
                    "qualified variants are required", tsr_str_at(a, tsr_kernel_rec(a, kernel)),
                    tsr_str_at(a, vr + 8), tsr_str_at(a, vr + 16));
    return TSR_ERROR_NOT_QUALIFIED;
  }
  /* NO_DEVICE only when every kind the kernel has lacks its device. */
  return asked && !device_seen ? TSR_ERROR_NO_DEVICE : TSR_ERROR_NO_VARIANT;
}
