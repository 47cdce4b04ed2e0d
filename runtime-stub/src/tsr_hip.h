/* Internals of the HIP backend: the subset of the HIP runtime API it uses
 * (HIP API reference, hip_runtime_api.h of ROCm 5.2), resolved with
 * dlopen("libamdhip64.so") so that nothing links against ROCm.
 * backend_hip_runtime.c loads it, backend_hip.c selects variants and says
 * what HIP calls its codes; loading and launching are gpu_launch.c's. The
 * names are the stub's own (HIP's handles are void* here), so that a test
 * may include both this file and ROCm's header. */
#ifndef TSR_HIP_H
#define TSR_HIP_H

#include "tsr_dl.h"
#include "tsr_gpu.h"

typedef int tsr_hip_error;

/* hipDeviceProp_t as the exported hipGetDeviceProperties fills it: ROCm 5's
 * layout (R0000), which ROCm 6 keeps under that name next to
 * hipGetDevicePropertiesR0600. Read into a buffer of TSR_HIP_PROP_BUFFER
 * bytes (a newer, larger struct still fits); only `name` (offset 0) and
 * `gcnArchName` are read. tests/unit/hip_device_prop_layout_test.cc checks
 * both offsets and the size against /usr/include/hip. */
enum {
  TSR_HIP_R0000_NAME_OFFSET = 0,
  TSR_HIP_R0000_GCN_ARCH_NAME_OFFSET = 396,
  TSR_HIP_R0000_PROP_SIZE = 792,
  TSR_HIP_STRING_SIZE = 256,   /* char name[256], char gcnArchName[256] */
  TSR_HIP_PROP_BUFFER = 4096
};

/* The runtime's entry points, X(symbol, return, parameters) (tsr_dl.h).
 * Device addresses are tsr_gpu_ptr (HIP's void*) and modules, functions and
 * streams void*: the shared launch code's calls (tsr_gpu_calls). */
#define TSR_HIP_SYMBOLS(X)                                                                                   \
  X(hipInit, tsr_hip_error, (unsigned))                                                                      \
  X(hipGetDeviceCount, tsr_hip_error, (int*))                                                                \
  X(hipGetDeviceProperties, tsr_hip_error, (void*, int))                                                     \
  X(hipGetDevice, tsr_hip_error, (int*))                                                                     \
  X(hipSetDevice, tsr_hip_error, (int))                                                                      \
  X(hipModuleLoadData, tsr_hip_error, (void**, const void*))                                                 \
  X(hipModuleUnload, tsr_hip_error, (void*))                                                                 \
  X(hipModuleGetFunction, tsr_hip_error, (void**, void*, const char*))                                       \
  X(hipMalloc, tsr_hip_error, (tsr_gpu_ptr*, size_t))                                                        \
  X(hipFree, tsr_hip_error, (tsr_gpu_ptr))                                                                   \
  X(hipMemcpyHtoD, tsr_hip_error, (tsr_gpu_ptr, const void*, size_t))                                        \
  X(hipMemcpyDtoH, tsr_hip_error, (void*, tsr_gpu_ptr, size_t))                                              \
  X(hipDeviceSynchronize, tsr_hip_error, (void))                                                             \
  X(hipModuleLaunchKernel, tsr_hip_error,                                                                    \
    (void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**))    \
  X(hipDriverGetVersion, tsr_hip_error, (int*))
/* Optional: NULL when the runtime lacks them. */
#define TSR_HIP_OPTIONAL_SYMBOLS(X) X(hipGetErrorName, const char*, (tsr_hip_error))

typedef struct tsr_hip_api {
  TSR_HIP_SYMBOLS(TSR_DL_MEMBER)
  TSR_HIP_OPTIONAL_SYMBOLS(TSR_DL_MEMBER)
} tsr_hip_api;

typedef struct tsr_hip_device {
  char arch[TSR_HIP_STRING_SIZE];   /* gcnArchName, a target ID: "gfx90a:sramecc+:xnack-"; "" unknown */
  char name[TSR_HIP_STRING_SIZE];
} tsr_hip_device;

/* The runtime as loaded once per process (or per tsr_hip_use_runtime_for_tests). */
typedef struct tsr_hip_runtime {
  tsr_gpu_driver gpu;       /* first: status, why, device_count, generation, the shared calls */
  tsr_hip_api api;
  tsr_hip_device* devices;
} tsr_hip_runtime;

/* The runtime, loaded and initialized on the first call (thread-safe); never NULL. */
tsr_hip_runtime* tsr_hip_runtime_get(void);

/* Makes `device` current on this thread, saving the caller's in *saved;
 * tsr_hip_restore puts the caller's back (HIP has no context stack). */
tsr_status tsr_hip_enter(tsr_hip_runtime* h, int device, int* saved, tsr_status phase, char* msg, size_t msg_size);
void tsr_hip_restore(tsr_hip_runtime* h, int saved);

/* hipGetErrorName's answer for r, or NULL (also while the runtime loads). */
const char* tsr_hip_error_name(int r);

/* The status a tsr_hip_error maps to (docs/runtime.md, "GPU launch"); `phase`
 * for codes without a more specific status. */
tsr_status tsr_hip_status(tsr_hip_error r, tsr_status phase);

#endif /* TSR_HIP_H */
