/* What the GPU vendors' loaders share (tsr_gpu.h): the one-time load, the
 * reset for the test doubles, and the mapping of vendor codes to statuses
 * (docs/runtime.md, "GPU launch"). */
#include <dlfcn.h>
#include <stdio.h>

#include "tsr_gpu.h"

_Static_assert(sizeof(tsr_gpu_ptr) == sizeof(void*), "device addresses are pointer-sized");

/* A mutex and a flag rather than pthread_once, so that tests can reset it. */
void tsr_gpu_driver_once(tsr_gpu_driver* d, void (*load)(tsr_gpu_driver* d)) {
  if (__atomic_load_n(&d->ready, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&d->lock);
  if (!d->ready) {
    load(d);
    __atomic_store_n(&d->ready, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->lock);
}

void tsr_gpu_driver_reset(tsr_gpu_driver* d, size_t size, void (*release)(tsr_gpu_driver* d), const char* path) {
  pthread_mutex_lock(&d->lock);
  release(d);
  if (d->library) dlclose(d->library);
  const size_t kept = offsetof(tsr_gpu_driver, status);
  memset((char*)d + kept, 0, size - kept);
  d->generation++;
  snprintf(d->path, sizeof d->path, "%s", path ? path : "");
  __atomic_store_n(&d->ready, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&d->lock);
}

static int listed(const unsigned short* codes, int r) {
  for (; *codes; ++codes)
    if (*codes == r) return 1;
  return 0;
}

/* The codes both vendors number alike (cuda.h, hip_runtime_api.h). */
tsr_status tsr_gpu_status(const tsr_gpu_vendor* v, int r, tsr_status phase) {
  switch (r) {
    case 0: return TSR_OK;
    case 1:    /* INVALID_VALUE */
    case 400:  /* INVALID_HANDLE: the caller's stream is the only handle from outside */
      return phase == TSR_ERROR_LAUNCH_FAILED ? TSR_ERROR_INVALID_ARGUMENT : phase;
    case 2: return TSR_ERROR_OUT_OF_MEMORY;
    default:
      if (listed(v->no_device_codes, r)) return TSR_ERROR_NO_DEVICE;
      return listed(v->load_codes, r) ? TSR_ERROR_LOAD_FAILED : phase;
  }
}

void tsr_gpu_error_text(const tsr_gpu_vendor* v, int r, char* out, size_t size) {
  const char* name = v->error_name(r);
  snprintf(out, size, "%s (%d)", name ? name : v->error_type, r);
}

tsr_status tsr_gpu_fail(const tsr_gpu_vendor* v, int r, tsr_status phase, const char* what, int device, char* msg,
                        size_t msg_size) {
  char text[80];
  tsr_gpu_error_text(v, r, text, sizeof text);
  tsr_set_message(msg, msg_size, "%s failed on %s device %d: %s", what, v->name, device, text);
  return tsr_gpu_status(v, r, phase);
}
