/* What the GPU backends (cuda, hip) share: loading, launching and
 * marshalling (gpu_launch.c), the driver's one-time load and the mapping of
 * vendor codes to statuses (gpu_driver.c), the launch metadata the compile
 * step records per variant (<kind>.block, <kind>.grid, <kind>.shared_bytes;
 * docs/targets-cuda.md, docs/targets-hip.md) and its evaluation at launch
 * with the one geometry evaluator (tsr_cuda_eval_triple).
 * The vendors differ only in their symbol tables, error names, device
 * discovery and variant selection (tsr_gpu_vendor). */
#ifndef TSR_GPU_H
#define TSR_GPU_H

#include "tsr_internal.h"

/* The variant's launch metadata: block and grid texts (archive strings) and
 * the dynamic shared memory in bytes (0 when absent, at most 2^31-1).
 * TSR_ERROR_CORRUPT with "<kind> variant has ..." in msg otherwise. */
tsr_status tsr_gpu_launch_metadata(const tsr_archive* a, size_t kernel, size_t variant, const char* kind,
                                   const char** out_block, const char** out_grid, unsigned* out_shared,
                                   char* msg, size_t msg_size);

/* Block and grid for one launch's scalars (names in ABI order). A grid past
 * the limits for these sizes is TSR_ERROR_INVALID_SCALAR, anything else
 * wrong TSR_ERROR_CORRUPT, each with the message naming the text. */
tsr_status tsr_gpu_launch_dims(const struct tsr_kernel* k, const char* kind, const char* block_text,
                               const char* grid_text, const char* const* scalar_names,
                               const tsr_launch_args* args, unsigned block[3], unsigned grid[3], char* msg,
                               size_t msg_size);

/* The kernel's runtime scalar names in ABI order (one allocation, at least
 * one element; the strings are the archive's), or NULL out of memory. */
const char** tsr_gpu_scalar_names(const struct tsr_kernel* k);

/* ---- per-device modules (both backends: docs/runtime.md, "Lazy modules") -- */
/* The kernel on one device: set up on its first use there. */
typedef struct tsr_gpu_slot {
  int ready;                 /* __atomic: 1 once the fields below are set */
  void* module;              /* CUmodule / hipModule_t */
  void* function;            /* CUfunction / hipFunction_t */
  const char* block;         /* archive strings */
  const char* grid;
  unsigned shared_bytes;
} tsr_gpu_slot;

/* A loaded GPU kernel (tsr_kernel.backend_state). */
typedef struct tsr_gpu_kernel {
  pthread_mutex_t lock;      /* serializes first loads; launches of a ready slot never take it */
  unsigned generation;       /* the driver's at load */
  int slot_count;
  const char** scalar_names; /* ABI order, for the geometry */
  tsr_gpu_slot slots[];      /* one per device ordinal */
} tsr_gpu_kernel;

/* A device address: CUdeviceptr, and HIP's void* (the stub is LP64 only). */
typedef unsigned long long tsr_gpu_ptr;

/* The calls the shared launch code makes (gpu_launch.c), in one signature
 * for both vendors: results are the vendor's codes (0 success), handles
 * opaque pointers. Each vendor's loader sets them from its symbol table,
 * whose rows for these calls are written in these types (so that the
 * assignment is type-checked). */
typedef struct tsr_gpu_calls {
  int (*module_load)(void** module, const void* image);
  int (*module_function)(void** function, void* module, const char* name);
  int (*module_unload)(void* module);
  int (*mem_alloc)(tsr_gpu_ptr* out, size_t bytes);
  int (*mem_free)(tsr_gpu_ptr address);
  int (*memcpy_htod)(tsr_gpu_ptr dst, const void* src, size_t bytes);
  int (*memcpy_dtoh)(void* dst, tsr_gpu_ptr src, size_t bytes);
  int (*synchronize)(void);
  int (*launch)(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                unsigned shared_bytes, void* stream, void** params, void** extra);
} tsr_gpu_calls;

/* A vendor's library as loaded once per process (or per test reset): the
 * first member of the vendor's own driver struct. */
typedef struct tsr_gpu_driver {
  pthread_mutex_t lock;     /* loading; CUDA's first retain of a primary context */
  int ready;                /* __atomic: 1 once loaded; the steady state takes no lock */
  unsigned generation;      /* changes with every test reset; kernels loaded before it skip the driver */
  char path[256];           /* tests: the library to load instead of the vendor's; "" none */
  /* What a reset clears, from here to the end of the vendor's struct: */
  tsr_status status;        /* TSR_OK, or TSR_ERROR_NO_DEVICE with why */
  char why[200];
  void* library;
  int driver_version;
  int device_count;
  tsr_gpu_calls calls;
} tsr_gpu_driver;

/* Loads d with `load` on the first call (thread-safe). */
void tsr_gpu_driver_once(tsr_gpu_driver* d, void (*load)(tsr_gpu_driver* d));
/* Tests: releases d (`release` first, under d's lock: what the vendor holds
 * besides the library), clears it up to `size` bytes and makes the next use
 * load `path` (NULL: the vendor's library). */
void tsr_gpu_driver_reset(tsr_gpu_driver* d, size_t size, void (*release)(tsr_gpu_driver* d), const char* path);

/* What CUDA and HIP differ in besides their symbol tables. */
typedef struct tsr_gpu_vendor {
  tsr_backend backend;      /* first: a kernel's k->backend is its vendor */
  const char* name;         /* "CUDA", "HIP": messages */
  tsr_gpu_driver* (*driver)(void);   /* loaded on first use */
  /* Makes `device` current on this thread, the caller's own state saved in
   * *saved; leave puts it back. `phase` as for tsr_gpu_status. */
  tsr_status (*enter)(int device, int* saved, tsr_status phase, char* msg, size_t msg_size);
  void (*leave)(int saved);
  /* The vendor's name of code r, or NULL. */
  const char* (*error_name)(int r);
  const char* error_type;   /* what a code without a name is called: "CUresult" */
  /* Codes that mean TSR_ERROR_NO_DEVICE, and TSR_ERROR_LOAD_FAILED; 0-terminated. */
  const unsigned short* no_device_codes;
  const unsigned short* load_codes;
  /* Above the default dynamic shared memory a function needs the vendor's
   * opt-in: sets it, naming the call in `what`; NULL where none exists. */
  int (*allow_shared)(void* function, unsigned bytes, char* what, size_t what_size);
  /* The device's arch for messages ("sm_90", "gfx90a:sramecc+:xnack-"). */
  void (*describe)(int device, char* out, size_t size);
  /* The calls' names in messages; get_function is a format taking the entry. */
  const char* load_module;
  const char* get_function;
  const char* alloc;
  const char* copy_in;
  const char* launch;
  const char* synchronize;
  const char* copy_out;
} tsr_gpu_vendor;

/* The vendors (backend_cuda.c, backend_hip.c; backend_absent.c for one built
 * out of the stub), whose .backend rows backends.c lists. */
extern const tsr_gpu_vendor tsr_gpu_cuda;
extern const tsr_gpu_vendor tsr_gpu_hip;

enum { TSR_GPU_DEFAULT_SHARED_LIMIT = 48 * 1024 };  /* dynamic shared memory a launch gets without the opt-in */

/* The status a vendor code maps to (docs/runtime.md, "GPU launch"); `phase`
 * (TSR_ERROR_LOAD_FAILED or TSR_ERROR_LAUNCH_FAILED) for codes without a
 * more specific status. */
tsr_status tsr_gpu_status(const tsr_gpu_vendor* v, int r, tsr_status phase);
/* Writes "<what> failed on <vendor> device D: <name> (r)" to msg and returns
 * tsr_gpu_status(v, r, phase). */
tsr_status tsr_gpu_fail(const tsr_gpu_vendor* v, int r, tsr_status phase, const char* what, int device, char* msg,
                        size_t msg_size);
/* "<name> (r)", or "<error_type> (r)" for a code without a name. */
void tsr_gpu_error_text(const tsr_gpu_vendor* v, int r, char* out, size_t size);

/* The backend entry points both vendors share (gpu_launch.c): the kernel's
 * vendor is (const tsr_gpu_vendor*)k->backend. */
tsr_status tsr_gpu_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi, char* msg,
                        size_t msg_size);
tsr_status tsr_gpu_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size);
void tsr_gpu_unload(struct tsr_kernel* k);

/* A kernel state with `device_count` empty slots, set as k->backend_state;
 * TSR_ERROR_OUT_OF_MEMORY when it cannot be had. */
tsr_status tsr_gpu_kernel_new(struct tsr_kernel* k, unsigned generation, int device_count);
/* The device's slot, loaded on first use (the variant selected again for that
 * device): once, even when threads race. NO_DEVICE past the slots or after a
 * driver reset (`generation` differs). */
tsr_status tsr_gpu_slot_for(struct tsr_kernel* k, const tsr_gpu_vendor* v, unsigned generation, int device,
                            tsr_gpu_slot** out, char* msg, size_t msg_size);
/* Frees the state (the backend has unloaded the modules). */
void tsr_gpu_kernel_free(struct tsr_kernel* k);

#endif /* TSR_GPU_H */
