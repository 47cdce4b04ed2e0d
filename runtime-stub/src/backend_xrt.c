/* AMD XDNA backend (XRT, loaded with dlopen). This version only probes: it
 * reports TSR_ERROR_NO_DEVICE without XRT or without /dev/accel/accel0, and
 * TSR_ERROR_UNSUPPORTED otherwise (XRT's API is C++; a C shim is future
 * work, see docs/archive-format.md). */
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "tsr_internal.h"

static int state = -1;   /* the probe's status, set once */

static void probe_once(void) {
  void* lib = dlopen("libxrt_coreutil.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libxrt_coreutil.so", RTLD_NOW | RTLD_LOCAL);
  state = lib && access("/dev/accel/accel0", R_OK) == 0 ? TSR_ERROR_UNSUPPORTED : TSR_ERROR_NO_DEVICE;
}

tsr_status tsr_xrt_probe(char* out_npu, size_t npu_size) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, probe_once);
  if (out_npu && npu_size) out_npu[0] = 0;
  return (tsr_status)state;
}

/* Present devices cannot run yet (see above): no variant is ever selected. */
static tsr_status xdna_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                              size_t* out_variant, const char** out_route) {
  (void)a, (void)kernel, (void)o, (void)out_variant, (void)out_route;
  return tsr_probe_only_select(tsr_xrt_probe(NULL, 0));
}

const tsr_backend tsr_backend_xdna = {
    "xdna", "tsr_kernel_launch", 0, xdna_select, tsr_unsupported_load, tsr_unsupported_launch,
    tsr_nothing_to_unload,
};
