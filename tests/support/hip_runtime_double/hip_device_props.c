/* The double's hipGetDeviceProperties payload, written through ROCm's own
 * hipDeviceProp_t (/usr/include/hip, ROCm 5.2: the R0000 layout the stub
 * reads): a separate file, so the double's exported functions need not match
 * the header's declarations. Without the header, the stub's offsets are used
 * (the layout test, hip_device_prop_layout_test.cc, then skips). */
#include <string.h>

#if __has_include(<hip/hip_runtime_api.h>)
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>

void hipdouble_write_props(void* out, const char* name, const char* arch) {
  hipDeviceProp_t p;
  memset(&p, 0, sizeof p);
  strncpy(p.name, name, sizeof p.name - 1);
  strncpy(p.gcnArchName, arch, sizeof p.gcnArchName - 1);
  memcpy(out, &p, sizeof p);
}
#else
void hipdouble_write_props(void* out, const char* name, const char* arch) {
  memset(out, 0, 792);
  strncpy((char*)out, name, 255);
  strncpy((char*)out + 396, arch, 255);
}
#endif
