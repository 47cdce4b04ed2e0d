/* TEST DOUBLE of XRT's C API (libtsr_xrt_double.so): the control and
 * recording interface the tests use. Built only with the tests; never
 * shipped, never an NPU. What it implements and why: README.md next to it. */
#ifndef TSR_XRT_DOUBLE_H
#define TSR_XRT_DOUBLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { XRTDOUBLE_MAX_ARGS = 8 };

typedef struct xrtdouble_call {
  char function[32];   /* the exported name called, e.g. "xrtKernelRun" */
  int result;          /* 0 / a handle's non-NULL-ness as 0, or the injected failure (-1) */
  int arg_count;
  /* Arguments in call order, handles as addresses. xrtKernelRun: kernel,
   * opcode, instruction BO, instruction words, in0, in1, out BOs.
   * xrtBOAlloc: size, flags, group. xrtBOSync: BO, direction, size. */
  unsigned long long args[XRTDOUBLE_MAX_ARGS];
  char text[64];       /* xrtPLKernelOpen: the kernel name */
} xrtdouble_call;

/* Forgets everything: calls, failures, buffers. */
typedef void (*xrtdouble_reset_fn)(void);
/* `function` fails (NULL handle or -1; xrtRunWait: state 5, ERROR) after
 * `skip` successful calls, `times` times (times < 0: every later call). */
typedef void (*xrtdouble_fail_fn)(const char* function, int skip, int times);
typedef size_t (*xrtdouble_call_count_fn)(void);
typedef int (*xrtdouble_call_at_fn)(size_t i, xrtdouble_call* out);
/* Buffer objects allocated and not freed. */
typedef int (*xrtdouble_live_buffers_fn)(void);
/* The bytes last written to the instruction BO (size in *out_size). */
typedef const void* (*xrtdouble_instructions_fn)(size_t* out_size);

#ifdef __cplusplus
}
#endif

#endif /* TSR_XRT_DOUBLE_H */
