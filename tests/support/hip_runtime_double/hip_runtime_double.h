/* TEST DOUBLE of the HIP runtime (libtsr_hip_runtime_double.so): the control
 * and recording interface the tests use. Built only with the tests; never
 * shipped, never a runtime. What it implements and why: README.md next to it.
 * The tests dlopen the library by path (the handle the stub gets from
 * tsr_hip_use_runtime_for_tests) and reach these functions with dlsym. */
#ifndef TSR_HIP_RUNTIME_DOUBLE_H
#define TSR_HIP_RUNTIME_DOUBLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { HIPDOUBLE_MAX_ARGS = 24, HIPDOUBLE_MAX_DEVICES = 8 };

/* One recorded runtime call. */
typedef struct hipdouble_call {
  char function[40];      /* the exported name called, e.g. "hipModuleLaunchKernel" */
  int device;             /* the calling thread's current device (hipSetDevice) at the call */
  int result;             /* the hipError_t returned */
  int arg_count;
  /* The arguments in call order, pointers and handles as addresses, values
   * written through out-pointers after the call (hipMalloc's address,
   * hipModuleLoadData's module). hipModuleLaunchKernel: function, grid x y
   * z, block x y z, shared bytes, stream, then the kernarg segment as 8-byte
   * words (each parameter pointer's 8 bytes, as many as the image declares). */
  unsigned long long args[HIPDOUBLE_MAX_ARGS];
  /* hipModuleLoadData: the image's "tsr-hip-double ..." line;
   * hipModuleGetFunction: the kernel name. */
  char text[128];
} hipdouble_call;

/* Forgets everything: no devices, no failures, an empty log, every
 * allocation and module gone; every thread's current device back to 0. */
typedef void (*hipdouble_reset_fn)(void);
/* `count` devices whose gcnArchName are `arch_names` ("gfx90a:sramecc+:xnack-"). */
typedef void (*hipdouble_set_devices_fn)(int count, const char* const* arch_names);
/* The next calls of `function` return `result`: the first `skip` calls
 * succeed, then `times` calls fail (times < 0: every later one). */
typedef void (*hipdouble_fail_fn)(const char* function, int result, int skip, int times);
/* hipModuleLoadData sleeps this long, outside the double's lock. */
typedef void (*hipdouble_set_load_delay_fn)(unsigned microseconds);
/* Copies call i of the log; 0 when i is past the end. */
typedef int (*hipdouble_call_at_fn)(size_t i, hipdouble_call* out);

#ifdef __cplusplus
}
#endif

#endif /* TSR_HIP_RUNTIME_DOUBLE_H */
