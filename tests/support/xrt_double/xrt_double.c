/* TEST DOUBLE of XRT 2.13's C API (xrt/xrt_device.h, xrt_kernel.h,
 * xrt_bo.h): the calls libtesserart's XRT backend makes, each recorded, any
 * of them made to fail on demand. A run "executes" by writing
 * out[i] = in0[i] ^ in1[i] byte by byte, so the tests see both inputs reach
 * the output through the BOs; it proves nothing about an NPU. */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xrt_double.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct bo {
  size_t size;
  unsigned flags, group;
  unsigned char* host;   /* "host" memory */
  unsigned char* dev;    /* "device" memory: sync copies between them */
} bo;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static xrtdouble_call calls[4096];
static size_t call_count;
static char fail_name[32];
static int fail_skip, fail_times;
static int live;
static int device_token, kernel_token, run_token;
static unsigned char instructions[1 << 16];
static size_t instructions_size;

/* Records a call; returns 1 when an injected failure applies to it. */
static int record(const char* fn, int n, const unsigned long long* args, const char* text) {
  pthread_mutex_lock(&lock);
  int fail = 0;
  if (strcmp(fn, fail_name) == 0) {
    if (fail_skip > 0) --fail_skip;
    else if (fail_times != 0) {
      fail = 1;
      if (fail_times > 0) --fail_times;
    }
  }
  if (call_count < sizeof calls / sizeof calls[0]) {
    xrtdouble_call* c = &calls[call_count++];
    memset(c, 0, sizeof *c);
    strncpy(c->function, fn, sizeof c->function - 1);
    c->result = fail ? -1 : 0;
    c->arg_count = n;
    for (int i = 0; i < n && i < XRTDOUBLE_MAX_ARGS; ++i) c->args[i] = args[i];
    if (text) strncpy(c->text, text, sizeof c->text - 1);
  }
  pthread_mutex_unlock(&lock);
  return fail;
}
#define ARGS(...) (const unsigned long long[]){__VA_ARGS__}
#define U(p) (unsigned long long)(uintptr_t)(p)

EXPORT void xrtdouble_reset(void) {
  pthread_mutex_lock(&lock);
  call_count = 0;
  fail_name[0] = 0;
  fail_skip = fail_times = 0;
  live = 0;
  instructions_size = 0;
  pthread_mutex_unlock(&lock);
}
EXPORT void xrtdouble_fail(const char* fn, int skip, int times) {
  pthread_mutex_lock(&lock);
  strncpy(fail_name, fn, sizeof fail_name - 1);
  fail_skip = skip;
  fail_times = times;
  pthread_mutex_unlock(&lock);
}
EXPORT size_t xrtdouble_call_count(void) { return call_count; }
EXPORT int xrtdouble_call_at(size_t i, xrtdouble_call* out) {
  pthread_mutex_lock(&lock);
  int ok = i < call_count;
  if (ok) *out = calls[i];
  pthread_mutex_unlock(&lock);
  return ok;
}
EXPORT int xrtdouble_live_buffers(void) { return live; }
EXPORT const void* xrtdouble_instructions(size_t* out_size) {
  *out_size = instructions_size;
  return instructions;
}

EXPORT void* xrtDeviceOpen(unsigned index) {
  return record("xrtDeviceOpen", 1, ARGS(index), NULL) ? NULL : &device_token;
}
EXPORT int xrtDeviceLoadXclbin(void* device, const void* axlf) {
  return record("xrtDeviceLoadXclbin", 2, ARGS(U(device), U(axlf)), NULL) ? -1 : 0;
}
EXPORT int xrtDeviceGetXclbinUUID(void* device, unsigned char out[16]) {
  memset(out, 0xab, 16);
  return record("xrtDeviceGetXclbinUUID", 1, ARGS(U(device)), NULL) ? -1 : 0;
}
EXPORT void* xrtPLKernelOpen(void* device, const unsigned char uuid[16], const char* name) {
  return record("xrtPLKernelOpen", 2, ARGS(U(device), uuid[0]), name) ? NULL : &kernel_token;
}
EXPORT int xrtKernelClose(void* kernel) { return record("xrtKernelClose", 1, ARGS(U(kernel)), NULL) ? -1 : 0; }
/* Groups as an NPU reports them: the instruction stream's 1, the buffers' 3, 4, 5 = argument numbers. */
EXPORT int xrtKernelArgGroupId(void* kernel, int argno) {
  return record("xrtKernelArgGroupId", 2, ARGS(U(kernel), (unsigned)argno), NULL) ? -1 : argno;
}
EXPORT void* xrtBOAlloc(void* device, size_t size, unsigned flags, unsigned group) {
  if (record("xrtBOAlloc", 4, ARGS(U(device), size, flags, group), NULL)) return NULL;
  bo* b = (bo*)calloc(1, sizeof *b);
  b->size = size;
  b->flags = flags;
  b->group = group;
  b->host = (unsigned char*)calloc(1, size ? size : 1);
  b->dev = (unsigned char*)calloc(1, size ? size : 1);
  __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
  return b;
}
EXPORT int xrtBOFree(void* h) {
  bo* b = (bo*)h;
  record("xrtBOFree", 1, ARGS(U(h)), NULL);
  free(b->host);
  free(b->dev);
  free(b);
  __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
  return 0;
}
EXPORT int xrtBOWrite(void* h, const void* src, size_t size, size_t seek) {
  bo* b = (bo*)h;
  if (record("xrtBOWrite", 3, ARGS(U(h), size, seek), NULL) || seek > b->size || size > b->size - seek) return -1;
  memcpy(b->host + seek, src, size);
  if (b->group == 1) {   /* the instruction stream: kept for the tests to compare */
    pthread_mutex_lock(&lock);
    instructions_size = size < sizeof instructions ? size : sizeof instructions;
    memcpy(instructions, src, instructions_size);
    pthread_mutex_unlock(&lock);
  }
  return 0;
}
EXPORT int xrtBORead(void* h, void* dst, size_t size, size_t skip) {
  bo* b = (bo*)h;
  if (record("xrtBORead", 3, ARGS(U(h), size, skip), NULL) || skip > b->size || size > b->size - skip) return -1;
  memcpy(dst, b->host + skip, size);
  return 0;
}
EXPORT int xrtBOSync(void* h, int direction, size_t size, size_t offset) {
  bo* b = (bo*)h;
  if (record("xrtBOSync", 3, ARGS(U(h), (unsigned)direction, size), NULL) || offset > b->size ||
      size > b->size - offset)
    return -1;
  if (direction == 0) memcpy(b->dev + offset, b->host + offset, size);
  else memcpy(b->host + offset, b->dev + offset, size);
  return 0;
}
EXPORT void* xrtKernelRun(void* kernel, ...) {
  va_list ap;
  va_start(ap, kernel);
  unsigned long long opcode = va_arg(ap, unsigned long long);
  bo* instr = va_arg(ap, bo*);
  unsigned words = va_arg(ap, unsigned);
  bo* in0 = va_arg(ap, bo*);
  bo* in1 = va_arg(ap, bo*);
  bo* out = va_arg(ap, bo*);
  va_end(ap);
  if (record("xrtKernelRun", 7, ARGS(U(kernel), opcode, U(instr), words, U(in0), U(in1), U(out)), NULL)) return NULL;
  for (size_t i = 0; i < out->size && i < in0->size && i < in1->size; ++i) out->dev[i] = in0->dev[i] ^ in1->dev[i];
  return &run_token;
}
EXPORT int xrtRunWait(void* run) { return record("xrtRunWait", 1, ARGS(U(run)), NULL) ? 5 : 4; }
EXPORT int xrtRunClose(void* run) { return record("xrtRunClose", 1, ARGS(U(run)), NULL) ? -1 : 0; }
