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
  char gfx[64];
  return tsr_hip_probe(gfx, sizeof gfx) == TSR_ERROR_NO_DEVICE ? TSR_ERROR_NO_DEVICE : TSR_ERROR_NO_VARIANT;
}
static tsr_status hip_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi,
                           char* msg, size_t msg_size) {
  (void)k, (void)blob, (void)size, (void)vi, (void)msg, (void)msg_size;
  return TSR_ERROR_UNSUPPORTED;
}
static tsr_status hip_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  (void)k, (void)args, (void)msg, (void)msg_size;
  return TSR_ERROR_UNSUPPORTED;
}
static void hip_unload(struct tsr_kernel* k) { (void)k; }

const tsr_backend tsr_backend_hip = {
    "hip", "tsr_kernel_launch_device", 1, hip_select, hip_load, hip_launch, hip_unload,
};
