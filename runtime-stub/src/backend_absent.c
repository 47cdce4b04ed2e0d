/* Stand-ins for the backends built out of the stub (TESSERAC_STUB_CUDA,
 * TESSERAC_STUB_HIP, TESSERAC_STUB_XRT off): each keeps its kind's row in
 * backends.c and behaves as on a machine without the vendor's library,
 * TSR_ERROR_NO_DEVICE with the reason the compiler's device discovery
 * prints, so that no caller needs a case of its own. With every backend
 * built this file is empty. */
#include <stdio.h>

#include "tsr_gpu.h"

#if !TSR_STUB_CUDA || !TSR_STUB_HIP || !TSR_STUB_XRT
static tsr_status absent_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                                size_t* out_variant, const char** out_route) {
  (void)a, (void)kernel, (void)o, (void)out_variant, (void)out_route;
  return TSR_ERROR_NO_DEVICE;
}

/* Never reached: no variant of an absent kind is selected. */
static tsr_status absent_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi,
                              char* msg, size_t msg_size) {
  (void)k, (void)blob, (void)size, (void)vi, (void)msg, (void)msg_size;
  return TSR_ERROR_NO_DEVICE;
}

static tsr_status absent_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  (void)k, (void)args, (void)msg, (void)msg_size;
  return TSR_ERROR_NO_DEVICE;
}

static void absent_unload(struct tsr_kernel* k) { (void)k; }

#define ABSENT(kind, launch_name, device_pointers) \
  {kind, launch_name, device_pointers, absent_select, absent_load, absent_launch, absent_unload}
#endif

#if !TSR_STUB_CUDA
const tsr_gpu_vendor tsr_gpu_cuda = {.backend = ABSENT("cuda", "tsr_kernel_launch_device", 1), .name = "CUDA"};

tsr_status tsr_cuda_probe(int device, int* out_cc) {
  (void)device, (void)out_cc;
  return TSR_ERROR_NO_DEVICE;
}
int tsr_cuda_device_count(void) { return 0; }
const char* tsr_cuda_unavailable_reason(void) {
  return "no CUDA backend (libtesserart built with TESSERAC_STUB_CUDA=OFF)";
}
tsr_status tsr_cuda_describe(int device, tsr_cuda_device_desc* out) {
  (void)device;
  if (!out) return TSR_ERROR_NULL_ARGUMENT;
  memset(out, 0, sizeof *out);
  return TSR_ERROR_NO_DEVICE;
}
void* tsr_cuda_driver_symbol(const char* name) {
  (void)name;
  return NULL;
}
void tsr_cuda_use_driver_for_tests(const char* path) { (void)path; }
#endif

#if !TSR_STUB_HIP
const tsr_gpu_vendor tsr_gpu_hip = {.backend = ABSENT("hip", "tsr_kernel_launch_device", 1), .name = "HIP"};

int tsr_hip_device_count(void) { return 0; }
const char* tsr_hip_unavailable_reason(void) {
  return "no AMD GPU: no HIP backend (libtesserart built with TESSERAC_STUB_HIP=OFF)";
}
tsr_status tsr_hip_describe(int device, tsr_hip_device_desc* out) {
  (void)device;
  if (!out) return TSR_ERROR_NULL_ARGUMENT;
  memset(out, 0, sizeof *out);
  return TSR_ERROR_NO_DEVICE;
}
void* tsr_hip_runtime_symbol(const char* name) {
  (void)name;
  return NULL;
}
void tsr_hip_use_runtime_for_tests(const char* path) { (void)path; }
#endif

#if !TSR_STUB_XRT
const tsr_backend tsr_backend_xdna = ABSENT("xdna", "tsr_kernel_launch", 0);

tsr_status tsr_xrt_probe(char* out_npu, size_t npu_size) {
  if (out_npu && npu_size) snprintf(out_npu, npu_size, "%s", "no NPU (libtesserart built with TESSERAC_STUB_XRT=OFF)");
  return TSR_ERROR_NO_DEVICE;
}
void tsr_xrt_use_library_for_tests(const char* path, const char* arch) { (void)path, (void)arch; }
#endif
