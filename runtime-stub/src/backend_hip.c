/* AMD HIP backend (HIP module API, loaded with dlopen("libamdhip64.so")).
 * This version only probes: it reports TSR_ERROR_NO_DEVICE when the runtime
 * or a device is missing, and TSR_ERROR_UNSUPPORTED otherwise, because the
 * gfx name lives in hipDeviceProp_t whose layout changes between ROCm
 * releases (docs/archive-format.md, "Runtime stub notes"). */
#include <dlfcn.h>
#include <pthread.h>

#include "tsr_internal.h"

typedef int (*hip_init_fn)(unsigned);
typedef int (*hip_count_fn)(int*);

static int state = -1;   /* the probe's status, set once */

static void probe_once(void) {
  void* lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
  int count = 0;
  if (!lib) {
    state = TSR_ERROR_NO_DEVICE;
  } else {
    hip_init_fn init = (hip_init_fn)dlsym(lib, "hipInit");
    hip_count_fn get_count = (hip_count_fn)dlsym(lib, "hipGetDeviceCount");
    if (!init || !get_count || init(0) != 0 || get_count(&count) != 0 || count <= 0)
      state = TSR_ERROR_NO_DEVICE;
    else
      state = TSR_ERROR_UNSUPPORTED;
  }
}

tsr_status tsr_hip_probe(char* out_gfx, size_t gfx_size) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, probe_once);
  if (out_gfx && gfx_size) out_gfx[0] = 0;
  return (tsr_status)state;
}

/* Present devices cannot run yet (see above): no variant is ever selected. */
static tsr_status hip_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                             size_t* out_variant, const char** out_route) {
  (void)a, (void)kernel, (void)o, (void)out_variant, (void)out_route;
  return tsr_probe_only_select(tsr_hip_probe(NULL, 0));
}

const tsr_backend tsr_backend_hip = {
    "hip", "tsr_kernel_launch_device", 1, hip_select, tsr_unsupported_load, tsr_unsupported_launch,
    tsr_nothing_to_unload,
};
