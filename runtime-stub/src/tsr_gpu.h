/* What the GPU backends (cuda, hip) share: the launch metadata the compile
 * step records per variant (<kind>.block, <kind>.grid, <kind>.shared_bytes;
 * docs/targets-cuda.md, docs/targets-hip.md) and its evaluation at launch
 * with the one geometry evaluator (tsr_cuda_eval_triple). */
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

/* What the shared per-device logic needs from a backend. */
typedef struct tsr_gpu_backend {
  const tsr_backend* backend;
  const char* vendor;        /* "CUDA", "HIP": messages */
  /* Loads `variant` (blob, vi) on `device` into `slot`. */
  tsr_status (*load_slot)(struct tsr_kernel* k, int device, size_t variant, const void* blob, size_t size,
                          const tsr_variant_info* vi, tsr_gpu_slot* slot, char* msg, size_t msg_size);
  /* The device's arch for messages ("sm_90", "gfx90a:sramecc+:xnack-"). */
  void (*describe)(int device, char* out, size_t size);
} tsr_gpu_backend;

/* A kernel state with `device_count` empty slots, set as k->backend_state;
 * TSR_ERROR_OUT_OF_MEMORY when it cannot be had. */
tsr_status tsr_gpu_kernel_new(struct tsr_kernel* k, unsigned generation, int device_count);
/* The device's slot, loaded on first use (the variant selected again for that
 * device): once, even when threads race. NO_DEVICE past the slots or after a
 * driver reset (`generation` differs). */
tsr_status tsr_gpu_slot_for(struct tsr_kernel* k, const tsr_gpu_backend* gb, unsigned generation, int device,
                            tsr_gpu_slot** out, char* msg, size_t msg_size);
/* Frees the state (the backend has unloaded the modules). */
void tsr_gpu_kernel_free(struct tsr_kernel* k);

#endif /* TSR_GPU_H */
