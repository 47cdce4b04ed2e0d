/* The stub's backends, in selection preference order: a kernel runs on the
 * first kind that has a fitting variant and a present device. Adding a
 * target is one backend file and one row here (docs/adding-a-target.md). */
#include "tsr_internal.h"

const tsr_backend* const tsr_backends[] = {
    &tsr_backend_cuda,
    &tsr_backend_hip,
    &tsr_backend_xdna,
    &tsr_backend_x86,
};
const size_t tsr_backend_count = sizeof tsr_backends / sizeof tsr_backends[0];

const tsr_backend* tsr_backend_for_kind(const char* kind) {
  for (size_t b = 0; b < tsr_backend_count; ++b)
    if (strcmp(tsr_backends[b]->kind, kind) == 0) return tsr_backends[b];
  return NULL;
}

/* The probe-only backends (xdna): a present device is still one they
 * cannot run on, so nothing is selected, loaded or launched. */
tsr_status tsr_probe_only_select(tsr_status probe) {
  return probe == TSR_ERROR_NO_DEVICE ? TSR_ERROR_NO_DEVICE : TSR_ERROR_NO_VARIANT;
}

tsr_status tsr_unsupported_load(struct tsr_kernel* k, const void* blob, size_t size,
                                const tsr_variant_info* vi, char* msg, size_t msg_size) {
  (void)k, (void)blob, (void)size, (void)vi, (void)msg, (void)msg_size;
  return TSR_ERROR_UNSUPPORTED;
}

tsr_status tsr_unsupported_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg,
                                  size_t msg_size) {
  (void)k, (void)args, (void)msg, (void)msg_size;
  return TSR_ERROR_UNSUPPORTED;
}

void tsr_nothing_to_unload(struct tsr_kernel* k) { (void)k; }
