/* AMD XDNA backend (XRT, loaded with dlopen). This version only probes: it
 * reports TSR_ERROR_NO_DEVICE without XRT or without /dev/accel/accel0, and
 * TSR_ERROR_UNSUPPORTED otherwise (XRT's API is C++; a C shim is future
 * work, see docs/archive-format.md). */
#include <dlfcn.h>
#include <unistd.h>

#include "tsr_internal.h"

tsr_status tsr_xrt_probe(char* out_npu, size_t npu_size) {
  static int state = -1;
  if (state < 0) {
    void* lib = dlopen("libxrt_coreutil.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libxrt_coreutil.so", RTLD_NOW | RTLD_LOCAL);
    state = lib && access("/dev/accel/accel0", R_OK) == 0 ? TSR_ERROR_UNSUPPORTED : TSR_ERROR_NO_DEVICE;
  }
  if (out_npu && npu_size) out_npu[0] = 0;
  return (tsr_status)state;
}
