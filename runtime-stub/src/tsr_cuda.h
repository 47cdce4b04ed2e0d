/* Internals of the CUDA backend: the subset of the CUDA driver API it uses
 * (CUDA Driver API reference, cuda.h of CUDA 12/13), resolved with
 * dlopen("libcuda.so.1") so that nothing links against CUDA. backend_cuda.c
 * launches through it, backend_cuda_driver.c loads it,
 * backend_cuda_geometry.c reads the launch metadata. The types are opaque
 * handles with the ABI of cuda.h's. */
#ifndef TSR_CUDA_H
#define TSR_CUDA_H

#include "tsr_gpu.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;

enum {
  TSR_CU_ATTR_CC_MAJOR = 75,               /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
  TSR_CU_ATTR_CC_MINOR = 76,               /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
  TSR_CU_FUNC_MAX_DYNAMIC_SHARED = 8,      /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  TSR_CU_DEFAULT_SHARED_LIMIT = 48 * 1024  /* dynamic shared memory a launch gets without the attribute */
};

/* Entry points, in the order of the name table in backend_cuda_driver.c.
 * The _v2 names are what cuda.h maps the plain names to. */
typedef struct tsr_cuda_api {
  CUresult (*init)(unsigned);
  CUresult (*driver_version)(int*);
  CUresult (*device_count)(int*);
  CUresult (*device_get)(CUdevice*, int);
  CUresult (*device_name)(char*, int, CUdevice);
  CUresult (*device_attribute)(int*, int, CUdevice);
  CUresult (*primary_retain)(CUcontext*, CUdevice);
  CUresult (*primary_release)(CUdevice);
  CUresult (*ctx_push)(CUcontext);
  CUresult (*ctx_pop)(CUcontext*);
  CUresult (*ctx_synchronize)(void);
  CUresult (*module_load)(CUmodule*, const void*);
  CUresult (*module_unload)(CUmodule);
  CUresult (*module_function)(CUfunction*, CUmodule, const char*);
  CUresult (*func_set_attribute)(CUfunction, int, int);
  CUresult (*mem_alloc)(CUdeviceptr*, size_t);
  CUresult (*mem_free)(CUdeviceptr);
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, size_t);
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t);
  CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                     CUstream, void**, void**);
  CUresult (*error_name)(CUresult, const char**);   /* optional: NULL when the driver lacks it */
} tsr_cuda_api;

typedef struct tsr_cuda_device {
  CUdevice handle;
  int cc;                   /* compute capability, major * 10 + minor */
  CUcontext context;        /* the primary context, retained on first use */
  int context_ready;        /* __atomic: 1 once context is retained */
} tsr_cuda_device;

/* The driver as loaded once per process (or per tsr_cuda_use_driver_for_tests). */
typedef struct tsr_cuda_driver {
  tsr_status status;        /* TSR_OK, or TSR_ERROR_NO_DEVICE with why */
  char why[160];
  void* library;
  tsr_cuda_api api;
  int driver_version;
  int device_count;
  tsr_cuda_device* devices;
  unsigned generation;      /* changes with every test reset; kernels loaded before it skip the driver */
} tsr_cuda_driver;

/* The driver, loaded and initialized on the first call (thread-safe); never NULL. */
tsr_cuda_driver* tsr_cuda_driver_get(void);

/* Makes device's primary context current on this thread (retaining it on
 * first use); tsr_cuda_pop undoes it. The caller's own current context is
 * untouched after the pair. On failure msg says why; `phase` as for
 * tsr_cuda_status. */
tsr_status tsr_cuda_push(tsr_cuda_driver* d, int device, tsr_status phase, char* msg, size_t msg_size);
void tsr_cuda_pop(tsr_cuda_driver* d);

/* The status a CUresult maps to (docs/runtime.md, "GPU launch"); `phase`
 * (TSR_ERROR_LOAD_FAILED or TSR_ERROR_LAUNCH_FAILED) for codes without a
 * more specific status. */
tsr_status tsr_cuda_status(CUresult r, tsr_status phase);
/* Writes "<what> failed on device D: CUDA_ERROR_X (n)" to msg and returns
 * tsr_cuda_status(r, phase). */
tsr_status tsr_cuda_fail(const tsr_cuda_driver* d, CUresult r, tsr_status phase, const char* what, int device,
                         char* msg, size_t msg_size);


#endif /* TSR_CUDA_H */
