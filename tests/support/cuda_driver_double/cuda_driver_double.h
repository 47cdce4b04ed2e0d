/* TEST DOUBLE of the CUDA driver (libtsr_cuda_driver_double.so): the control
 * and recording interface the tests use. Built only with the tests; never
 * shipped, never a driver. What it implements and why: README.md next to it.
 *
 * The tests dlopen the library by path (the same handle the stub gets from
 * tsr_cuda_use_driver_for_tests) and reach these functions with dlsym. */
#ifndef TSR_CUDA_DRIVER_DOUBLE_H
#define TSR_CUDA_DRIVER_DOUBLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CUDADOUBLE_MAX_ARGS = 24, CUDADOUBLE_MAX_DEVICES = 8 };

/* One recorded driver call. */
typedef struct cudadouble_call {
  char function[40];      /* the exported name called, e.g. "cuLaunchKernel", "cuMemAlloc_v2" */
  int device;             /* device ordinal of the calling thread's current context; -1: none */
  int result;             /* the CUresult returned */
  int arg_count;
  /* The arguments in call order, pointers and handles as addresses, values
   * written through out-pointers after the call (the allocated address of
   * cuMemAlloc, the module of cuModuleLoadData). cuLaunchKernel: function,
   * grid x y z, block x y z, shared bytes, stream, then each kernel
   * parameter's 8-byte value (as many as the image declares). */
  unsigned long long args[CUDADOUBLE_MAX_ARGS];
  /* cuModuleLoadData: the image's "tsr-cuda-double ..." line;
   * cuModuleGetFunction: the entry name. */
  char text[128];
} cudadouble_call;

/* Forgets everything: no devices, no failures, an empty log, every
 * allocation, module and context gone. */
typedef void (*cudadouble_reset_fn)(void);
/* `count` devices with these compute capabilities (major*10+minor). */
typedef void (*cudadouble_set_devices_fn)(int count, const int* compute_capabilities);
/* The next calls of `function` (exported name) return `result`: the first
 * `skip` calls succeed, then `times` calls fail (times < 0: every later one). */
typedef void (*cudadouble_fail_fn)(const char* function, int result, int skip, int times);
/* cuModuleLoadData sleeps this long, outside the double's lock, so racing
 * first launches overlap. */
typedef void (*cudadouble_set_load_delay_fn)(unsigned microseconds);
typedef size_t (*cudadouble_call_count_fn)(void);
/* Copies call i of the log; 0 when i is past the end. */
typedef int (*cudadouble_call_at_fn)(size_t i, cudadouble_call* out);
/* Contexts pushed and not popped on the calling thread. */
typedef int (*cudadouble_context_depth_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TSR_CUDA_DRIVER_DOUBLE_H */
