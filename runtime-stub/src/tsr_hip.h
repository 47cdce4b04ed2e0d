/* Internals of the HIP backend: the subset of the HIP runtime API it uses
 * (HIP API reference, hip_runtime_api.h of ROCm 5.2), resolved with
 * dlopen("libamdhip64.so") so that nothing links against ROCm.
 * backend_hip_runtime.c loads it, backend_hip.c selects, loads and launches
 * through it. The handle types are the stub's names for HIP's opaque
 * pointers (hipModule_t, hipFunction_t, hipStream_t), so that a test may
 * include both this file and ROCm's header. */
#ifndef TSR_HIP_H
#define TSR_HIP_H

#include "tsr_gpu.h"

typedef int tsr_hip_error;
typedef struct tsr_hip_module_st* tsr_hip_module;
typedef struct tsr_hip_function_st* tsr_hip_function;
typedef struct tsr_hip_stream_st* tsr_hip_stream;

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

/* Entry points, in the order of the name table in backend_hip_runtime.c. */
typedef struct tsr_hip_api {
  tsr_hip_error (*init)(unsigned);
  tsr_hip_error (*device_count)(int*);
  tsr_hip_error (*device_properties)(void*, int);
  tsr_hip_error (*get_device)(int*);
  tsr_hip_error (*set_device)(int);
  tsr_hip_error (*module_load)(tsr_hip_module*, const void*);
  tsr_hip_error (*module_unload)(tsr_hip_module);
  tsr_hip_error (*module_function)(tsr_hip_function*, tsr_hip_module, const char*);
  tsr_hip_error (*mem_alloc)(void**, size_t);
  tsr_hip_error (*mem_free)(void*);
  tsr_hip_error (*memcpy_htod)(void*, void*, size_t);
  tsr_hip_error (*memcpy_dtoh)(void*, void*, size_t);
  tsr_hip_error (*device_synchronize)(void);
  tsr_hip_error (*launch)(tsr_hip_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       tsr_hip_stream, void**, void**);
  tsr_hip_error (*driver_version)(int*);
  const char* (*error_name)(tsr_hip_error);   /* optional: NULL when the runtime lacks it */
} tsr_hip_api;

typedef struct tsr_hip_device {
  char arch[TSR_HIP_STRING_SIZE];   /* gcnArchName, a target ID: "gfx90a:sramecc+:xnack-"; "" unknown */
  char name[TSR_HIP_STRING_SIZE];
} tsr_hip_device;

/* The runtime as loaded once per process (or per tsr_hip_use_runtime_for_tests). */
typedef struct tsr_hip_runtime {
  tsr_status status;        /* TSR_OK, or TSR_ERROR_NO_DEVICE with why */
  char why[200];
  void* library;
  tsr_hip_api api;
  int driver_version;
  int device_count;
  tsr_hip_device* devices;
  unsigned generation;      /* changes with every test reset; kernels loaded before it skip the runtime */
} tsr_hip_runtime;

/* The runtime, loaded and initialized on the first call (thread-safe); never NULL. */
tsr_hip_runtime* tsr_hip_runtime_get(void);

/* Makes `device` current on this thread, saving the caller's in *saved;
 * tsr_hip_restore puts the caller's back (HIP has no context stack). */
tsr_status tsr_hip_enter(tsr_hip_runtime* h, int device, int* saved, tsr_status phase, char* msg, size_t msg_size);
void tsr_hip_restore(tsr_hip_runtime* h, int saved);

/* The status a tsr_hip_error maps to (docs/runtime.md, "GPU launch"); `phase`
 * for codes without a more specific status. */
tsr_status tsr_hip_status(tsr_hip_error r, tsr_status phase);
/* Writes "<what> failed on HIP device D: hipErrorX (n)" and returns tsr_hip_status(r, phase). */
tsr_status tsr_hip_fail(const tsr_hip_runtime* h, tsr_hip_error r, tsr_status phase, const char* what, int device,
                        char* msg, size_t msg_size);

#endif /* TSR_HIP_H */
