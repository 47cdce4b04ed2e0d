/* Internals of the CUDA backend: the subset of the CUDA driver API it uses
 * (CUDA Driver API reference, cuda.h of CUDA 12/13), resolved with
 * dlopen("libcuda.so.1") so that nothing links against CUDA.
 * backend_cuda_driver.c loads it, backend_cuda.c selects variants and says
 * what CUDA calls its codes; loading and launching are gpu_launch.c's. The
 * types are opaque handles with the ABI of cuda.h's. */
#ifndef TSR_CUDA_H
#define TSR_CUDA_H

#include "tsr_dl.h"
#include "tsr_gpu.h"

typedef int CUresult;
typedef int CUdevice;
typedef tsr_gpu_ptr CUdeviceptr;
typedef struct CUctx_st* CUcontext;

enum {
  TSR_CU_ATTR_CC_MAJOR = 75,               /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
  TSR_CU_ATTR_CC_MINOR = 76,               /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
  TSR_CU_FUNC_MAX_DYNAMIC_SHARED = 8       /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

/* The driver's entry points, X(symbol, return, parameters) (tsr_dl.h). The
 * _v2 names are what cuda.h maps the plain names to. Modules, functions and
 * streams are void*: the shared launch code's calls (tsr_gpu_calls). */
#define TSR_CUDA_SYMBOLS(X)                                                                                  \
  X(cuInit, CUresult, (unsigned))                                                                            \
  X(cuDriverGetVersion, CUresult, (int*))                                                                    \
  X(cuDeviceGetCount, CUresult, (int*))                                                                      \
  X(cuDeviceGet, CUresult, (CUdevice*, int))                                                                 \
  X(cuDeviceGetName, CUresult, (char*, int, CUdevice))                                                       \
  X(cuDeviceGetAttribute, CUresult, (int*, int, CUdevice))                                                   \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext*, CUdevice))                                              \
  X(cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice))                                                      \
  X(cuCtxPushCurrent_v2, CUresult, (CUcontext))                                                              \
  X(cuCtxPopCurrent_v2, CUresult, (CUcontext*))                                                              \
  X(cuCtxSynchronize, CUresult, (void))                                                                      \
  X(cuModuleLoadData, CUresult, (void**, const void*))                                                       \
  X(cuModuleUnload, CUresult, (void*))                                                                       \
  X(cuModuleGetFunction, CUresult, (void**, void*, const char*))                                             \
  X(cuFuncSetAttribute, CUresult, (void*, int, int))                                                         \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr*, size_t))                                                         \
  X(cuMemFree_v2, CUresult, (CUdeviceptr))                                                                   \
  X(cuMemcpyHtoD_v2, CUresult, (CUdeviceptr, const void*, size_t))                                           \
  X(cuMemcpyDtoH_v2, CUresult, (void*, CUdeviceptr, size_t))                                                 \
  X(cuLaunchKernel, CUresult,                                                                                \
    (void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**))
/* Optional: NULL when the driver lacks them. */
#define TSR_CUDA_OPTIONAL_SYMBOLS(X) X(cuGetErrorName, CUresult, (CUresult, const char**))

typedef struct tsr_cuda_api {
  TSR_CUDA_SYMBOLS(TSR_DL_MEMBER)
  TSR_CUDA_OPTIONAL_SYMBOLS(TSR_DL_MEMBER)
} tsr_cuda_api;

typedef struct tsr_cuda_device {
  CUdevice handle;
  int cc;                   /* compute capability, major * 10 + minor */
  CUcontext context;        /* the primary context, retained on first use */
  int context_ready;        /* __atomic: 1 once context is retained */
} tsr_cuda_device;

/* The driver as loaded once per process (or per tsr_cuda_use_driver_for_tests). */
typedef struct tsr_cuda_driver {
  tsr_gpu_driver gpu;       /* first: status, why, device_count, generation, the shared calls */
  tsr_cuda_api api;
  tsr_cuda_device* devices;
} tsr_cuda_driver;

/* The driver, loaded and initialized on the first call (thread-safe); never NULL. */
tsr_cuda_driver* tsr_cuda_driver_get(void);

/* Makes device's primary context current on this thread (retaining it on
 * first use); tsr_cuda_pop undoes it. The caller's own current context is
 * untouched after the pair. On failure msg says why; `phase` as for
 * tsr_cuda_status. */
tsr_status tsr_cuda_push(tsr_cuda_driver* d, int device, tsr_status phase, char* msg, size_t msg_size);
void tsr_cuda_pop(tsr_cuda_driver* d);

/* cuGetErrorName's answer for r, or NULL (also while the driver loads). */
const char* tsr_cuda_error_name(int r);

/* The status a CUresult maps to (docs/runtime.md, "GPU launch"); `phase`
 * (TSR_ERROR_LOAD_FAILED or TSR_ERROR_LAUNCH_FAILED) for codes without a
 * more specific status. */
tsr_status tsr_cuda_status(CUresult r, tsr_status phase);

#endif /* TSR_CUDA_H */
