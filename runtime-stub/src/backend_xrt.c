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
  char npu[64];
  return tsr_xrt_probe(npu, sizeof npu) == TSR_ERROR_NO_DEVICE ? TSR_ERROR_NO_DEVICE : TSR_ERROR_NO_VARIANT;
}
static tsr_status xdna_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi,
                            char* msg, size_t msg_size) {
  (void)k, (void)blob, (void)size, (void)vi, (void)msg, (void)msg_size;
  return TSR_ERROR_UNSUPPORTED;
}
static tsr_status xdna_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  (void)k, (void)args, (void)msg, (void)msg_size;
  return TSR_ERROR_UNSUPPORTED;
}
static void xdna_unload(struct tsr_kernel* k) { (void)k; }

const tsr_backend tsr_backend_xdna = {
    "xdna", "tsr_kernel_launch", 0, xdna_select, xdna_load, xdna_launch, xdna_unload,
};
