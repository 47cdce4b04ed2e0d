/* AMD HIP backend (HIP module API, loaded with dlopen("libamdhip64.so")).
 * This version only probes: it reports TSR_ERROR_NO_DEVICE when the runtime
 * or a device is missing, and TSR_ERROR_UNSUPPORTED otherwise, because the
 * gfx name lives in hipDeviceProp_t whose layout changes between ROCm
 * releases (docs/archive-format.md, "Runtime stub notes"). */
#include <dlfcn.h>

#include "tsr_internal.h"

typedef int (*hip_init_fn)(unsigned);
typedef int (*hip_count_fn)(int*);

tsr_status tsr_hip_probe(char* out_gfx, size_t gfx_size) {
  static int state = -1;   /* -1 unknown, else the status */
  if (state < 0) {
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
  if (out_gfx && gfx_size) out_gfx[0] = 0;
  return (tsr_status)state;
}
