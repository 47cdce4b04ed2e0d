/* TEST DOUBLE of the HIP runtime (libamdhip64.so), for the unit tests only:
 * the subset of the HIP API that libtesserart calls, with the behaviour the
 * stub relies on (a per-thread current device set by hipSetDevice; a code
 * object loads only on a device whose gcnArchName satisfies its target ID;
 * a function launches only with its module's device current; without a GPU,
 * hipInit fails with hipErrorInvalidDevice and hipGetDeviceCount with
 * hipErrorNoDevice, as ROCm 5.2's runtime does), every call recorded with
 * its arguments, and failures injectable per function. It runs no GPU code:
 * an image declaring op=add adds two f32 arrays on the host when the
 * launch's addresses are this double's own allocations.
 * Control interface: hip_runtime_double.h; overview: README.md. */
#include "hip_runtime_double.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int hipError_t;
enum {
  OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_DEVICE_FUNCTION = 98,
  NO_DEVICE = 100, INVALID_DEVICE = 101, INVALID_IMAGE = 200, NO_BINARY_FOR_GPU = 209, INVALID_HANDLE = 400,
  NOT_FOUND = 500
};

void hipdouble_write_props(void* out, const char* name, const char* arch);   /* hip_device_props.c */

typedef struct function { struct module* module; } function;
typedef struct module {
  int device, params, add, live;
  char entry[64];
  function fn;
} module;
typedef struct allocation { uint8_t* p; size_t bytes; } allocation;
typedef struct rule { char function[40]; int result, skip, times; } rule;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized, device_count;
static char device_arch[HIPDOUBLE_MAX_DEVICES][64];
static module modules[256];
static int module_count;
static allocation allocations[256];
static rule rules[16];
static int rule_count;
static unsigned load_delay_us, generation;
static hipdouble_call* log_calls;
static size_t log_size, log_capacity;
/* The thread's current device, valid while its generation is the double's. */
static _Thread_local int current, current_generation;

/* ---- control interface ---------------------------------------------------- */
EXPORT void hipdouble_reset(void) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < sizeof allocations / sizeof *allocations; ++i) free(allocations[i].p);
  memset(allocations, 0, sizeof allocations);
  memset(modules, 0, sizeof modules);
  module_count = rule_count = initialized = device_count = 0;
  ++generation;
  __atomic_store_n(&load_delay_us, 0, __ATOMIC_RELAXED);
  free(log_calls);
  log_calls = NULL;
  log_size = log_capacity = 0;
  pthread_mutex_unlock(&lock);
}

EXPORT void hipdouble_set_devices(int count, const char* const* arch) {
  pthread_mutex_lock(&lock);
  device_count = count < HIPDOUBLE_MAX_DEVICES ? count : HIPDOUBLE_MAX_DEVICES;
  for (int i = 0; i < device_count; ++i) snprintf(device_arch[i], sizeof device_arch[i], "%s", arch[i]);
  pthread_mutex_unlock(&lock);
}

EXPORT void hipdouble_fail(const char* fn, int result, int skip, int times) {
  pthread_mutex_lock(&lock);
  if (rule_count < (int)(sizeof rules / sizeof *rules)) {
    rule* r = &rules[rule_count++];
    snprintf(r->function, sizeof r->function, "%s", fn);
    r->result = result;
    r->skip = skip;
    r->times = times;
  }
  pthread_mutex_unlock(&lock);
}

EXPORT void hipdouble_set_load_delay(unsigned us) { __atomic_store_n(&load_delay_us, us, __ATOMIC_RELAXED); }

EXPORT int hipdouble_call_at(size_t i, hipdouble_call* out) {
  pthread_mutex_lock(&lock);
  int ok = i < log_size;
  if (ok) *out = log_calls[i];
  pthread_mutex_unlock(&lock);
  return ok;
}

/* ---- recording, failures, state (all under lock) --------------------------- */
static int current_device(void) { return current_generation == (int)generation ? current : 0; }

static hipdouble_call* record(const char* fn, int nargs, const unsigned long long* args) {
  if (log_size == log_capacity) {
    size_t cap = log_capacity ? log_capacity * 2 : 64;
    hipdouble_call* grown = (hipdouble_call*)realloc(log_calls, cap * sizeof *grown);
    if (!grown) abort();
    log_calls = grown;
    log_capacity = cap;
  }
  hipdouble_call* c = &log_calls[log_size++];
  memset(c, 0, sizeof *c);
  snprintf(c->function, sizeof c->function, "%s", fn);
  c->device = current_device();
  c->arg_count = nargs;
  memcpy(c->args, args, (size_t)nargs * sizeof *args);
  return c;
}

/* The injected result for this call of fn, or 0. */
static hipError_t injected(const char* fn) {
  for (int i = 0; i < rule_count; ++i) {
    rule* r = &rules[i];
    if (strcmp(r->function, fn) != 0 || r->times == 0) continue;
    if (r->skip > 0) {
      --r->skip;
      continue;
    }
    if (r->times > 0) --r->times;
    return r->result;
  }
  return OK;
}

#define U(x) ((unsigned long long)(uintptr_t)(x))
/* Enter: lock, record the call, apply an injected failure or the init check. */
#define ENTER(name, ...)                                                                 \
  const unsigned long long call_args[] = {__VA_ARGS__};                                 \
  pthread_mutex_lock(&lock);                                                            \
  hipdouble_call* call = record(name, sizeof call_args / sizeof *call_args, call_args); \
  hipError_t rc = injected(name);                                                       \
  if (!rc && !initialized && strcmp(name, "hipInit") != 0 && strcmp(name, "hipGetDeviceCount") != 0) \
    rc = NOT_INITIALIZED;                                                               \
  if (rc) return leave(call, rc)

static hipError_t leave(hipdouble_call* call, hipError_t rc) {
  call->result = rc;
  pthread_mutex_unlock(&lock);
  return rc;
}

static allocation* find_allocation(uint64_t address, size_t bytes) {
  for (size_t i = 0; i < sizeof allocations / sizeof *allocations; ++i) {
    allocation* a = &allocations[i];
    if (a->p && address >= U(a->p) && bytes <= a->bytes && address - U(a->p) <= a->bytes - bytes) return a;
  }
  return NULL;
}

/* The image's target ID runs on the device: same processor, every feature it states present with its sign. */
static int runs_on(const char* target, const char* device) {
  size_t p = strcspn(target, ":");
  if (p != strcspn(device, ":") || strncmp(target, device, p) != 0) return 0;
  for (const char* f = target + p; *f == ':';) {
    size_t n = strcspn(++f, ":");
    char want[32];
    snprintf(want, sizeof want, ":%.*s", (int)n, f);
    const char* at = strstr(device + p, want);
    if (!at || (at[strlen(want)] && at[strlen(want)] != ':')) return 0;
    f += n;
  }
  return 1;
}

/* ---- the HIP API subset ------------------------------------------------------ */
EXPORT hipError_t hipInit(unsigned flags) {
  ENTER("hipInit", flags);
  initialized = device_count > 0;
  return leave(call, initialized ? OK : INVALID_DEVICE);
}

EXPORT hipError_t hipGetDeviceCount(int* count) {
  ENTER("hipGetDeviceCount", U(count));
  *count = device_count;
  return leave(call, device_count ? OK : NO_DEVICE);
}

EXPORT hipError_t hipDriverGetVersion(int* version) {
  ENTER("hipDriverGetVersion", U(version));
  *version = 50221153;
  return leave(call, OK);
}

EXPORT hipError_t hipGetDeviceProperties(void* prop, int device) {
  ENTER("hipGetDeviceProperties", U(prop), (unsigned long long)device);
  if (device < 0 || device >= device_count) return leave(call, INVALID_DEVICE);
  char name[64];
  snprintf(name, sizeof name, "HIP runtime double device %d", device);
  hipdouble_write_props(prop, name, device_arch[device]);
  return leave(call, OK);
}

EXPORT hipError_t hipGetDevice(int* device) {
  ENTER("hipGetDevice", U(device));
  *device = current_device();
  return leave(call, OK);
}

EXPORT hipError_t hipSetDevice(int device) {
  ENTER("hipSetDevice", (unsigned long long)device);
  if (device < 0 || device >= device_count) return leave(call, INVALID_DEVICE);
  current = device;
  current_generation = (int)generation;
  return leave(call, OK);
}

EXPORT hipError_t hipDeviceSynchronize(void) {
  ENTER("hipDeviceSynchronize", 0);
  return leave(call, OK);
}

/* Never called by the stub: exported so that a call would be recorded. */
EXPORT hipError_t hipStreamSynchronize(void* stream) {
  ENTER("hipStreamSynchronize", U(stream));
  return leave(call, OK);
}

/* Images are text: "tsr-hip-double target=ID params=N [op=add] [entry=NAME]". */
static int field(const char* line, const char* key, char* out, size_t size) {
  const char* p = strstr(line, key);
  if (!p) return 0;
  p += strlen(key);
  size_t n = strcspn(p, " \n");
  snprintf(out, size, "%.*s", (int)n, p);
  return 1;
}

EXPORT hipError_t hipModuleLoadData(void** out, const void* image) {
  unsigned delay = __atomic_load_n(&load_delay_us, __ATOMIC_RELAXED);
  if (delay) usleep(delay);   /* outside the lock: racing loads overlap here */
  ENTER("hipModuleLoadData", U(out), U(image));
  const char* marker = strstr((const char*)image, "tsr-hip-double ");
  char target[64] = "", params[16] = "0", op[16] = "";
  if (!marker || !field(marker, "target=", target, sizeof target)) return leave(call, INVALID_IMAGE);
  snprintf(call->text, sizeof call->text, "%.*s", (int)strcspn(marker, "\n"), marker);
  field(marker, "params=", params, sizeof params);
  field(marker, "op=", op, sizeof op);
  if (!runs_on(target, device_arch[current_device()])) return leave(call, NO_BINARY_FOR_GPU);
  if (module_count == (int)(sizeof modules / sizeof *modules)) return leave(call, OUT_OF_MEMORY);
  module* m = &modules[module_count++];
  m->device = current_device();
  m->params = atoi(params);
  m->add = strcmp(op, "add") == 0;
  m->live = 1;
  m->fn.module = m;
  if (!field(marker, "entry=", m->entry, sizeof m->entry)) m->entry[0] = 0;
  *out = m;
  call->args[0] = U(m);
  return leave(call, OK);
}

static module* live_module(void* handle) {
  for (int i = 0; i < module_count; ++i)
    if (handle == &modules[i] && modules[i].live) return &modules[i];
  return NULL;
}

EXPORT hipError_t hipModuleUnload(void* handle) {
  ENTER("hipModuleUnload", U(handle));
  module* m = live_module(handle);
  if (!m) return leave(call, INVALID_HANDLE);
  m->live = 0;
  return leave(call, OK);
}

EXPORT hipError_t hipModuleGetFunction(void** out, void* handle, const char* name) {
  ENTER("hipModuleGetFunction", U(out), U(handle), U(name));
  snprintf(call->text, sizeof call->text, "%s", name);
  module* m = live_module(handle);
  if (!m) return leave(call, INVALID_HANDLE);
  if (m->entry[0] && strcmp(m->entry, name) != 0) return leave(call, NOT_FOUND);
  *out = &m->fn;
  call->args[0] = U(&m->fn);
  return leave(call, OK);
}

EXPORT hipError_t hipMalloc(void** out, size_t bytes) {
  ENTER("hipMalloc", U(out), bytes);
  if (bytes == 0) return leave(call, INVALID_VALUE);
  for (size_t i = 0; i < sizeof allocations / sizeof *allocations; ++i)
    if (!allocations[i].p) {
      allocations[i].p = (uint8_t*)aligned_alloc(256, (bytes + 255) / 256 * 256);
      if (!allocations[i].p) return leave(call, OUT_OF_MEMORY);
      allocations[i].bytes = bytes;
      *out = allocations[i].p;
      call->args[0] = U(*out);
      return leave(call, OK);
    }
  return leave(call, OUT_OF_MEMORY);
}

EXPORT hipError_t hipFree(void* p) {
  ENTER("hipFree", U(p));
  allocation* a = find_allocation(U(p), 0);
  if (!a || a->p != p) return leave(call, INVALID_VALUE);
  free(a->p);
  a->p = NULL;
  return leave(call, OK);
}

EXPORT hipError_t hipMemcpyHtoD(void* dst, void* src, size_t bytes) {
  ENTER("hipMemcpyHtoD", U(dst), U(src), bytes);
  if (!find_allocation(U(dst), bytes)) return leave(call, INVALID_VALUE);
  memcpy(dst, src, bytes);
  return leave(call, OK);
}

EXPORT hipError_t hipMemcpyDtoH(void* dst, void* src, size_t bytes) {
  ENTER("hipMemcpyDtoH", U(dst), U(src), bytes);
  if (!find_allocation(U(src), bytes)) return leave(call, INVALID_VALUE);
  memcpy(dst, src, bytes);
  return leave(call, OK);
}

/* op=add: out[i] = in0[i] + in1[i] over n f32 elements, kernargs (in0, in1, out, n). */
static void emulate_add(const unsigned long long* p) {
  uint64_t n = p[3];
  if (n > (1u << 28) || !find_allocation(p[0], n * 4) || !find_allocation(p[1], n * 4) ||
      !find_allocation(p[2], n * 4))
    return;   /* not this double's memory (a device-pointer test's made-up addresses) */
  const float* a = (const float*)(uintptr_t)p[0];
  const float* b = (const float*)(uintptr_t)p[1];
  float* o = (float*)(uintptr_t)p[2];
  for (uint64_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
}

EXPORT hipError_t hipModuleLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  ENTER("hipModuleLaunchKernel", U(fn), gx, gy, gz, bx, by, bz, shared, U(stream));
  function* f = (function*)fn;
  if (!f || !live_module(f->module)) return leave(call, INVALID_HANDLE);
  if (f->module->device != current_device()) return leave(call, INVALID_DEVICE_FUNCTION);
  if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 || extra ||
      (f->module->params && !params) || shared > 64 * 1024)
    return leave(call, INVALID_VALUE);
  for (int i = 0; i < f->module->params && call->arg_count < HIPDOUBLE_MAX_ARGS; ++i)
    memcpy(&call->args[call->arg_count++], params[i], 8);
  if (f->module->add && f->module->params == 4) emulate_add(call->args + 9);
  return leave(call, OK);
}

EXPORT const char* hipGetErrorName(hipError_t error) {
  static const struct { int code; const char* name; } names[] = {
      {0, "hipSuccess"}, {1, "hipErrorInvalidValue"}, {2, "hipErrorOutOfMemory"},
      {3, "hipErrorNotInitialized"}, {4, "hipErrorDeinitialized"}, {35, "hipErrorInsufficientDriver"},
      {98, "hipErrorInvalidDeviceFunction"}, {100, "hipErrorNoDevice"}, {101, "hipErrorInvalidDevice"},
      {200, "hipErrorInvalidImage"}, {209, "hipErrorNoBinaryForGpu"}, {218, "hipErrorInvalidKernelFile"},
      {303, "hipErrorSharedObjectInitFailed"}, {400, "hipErrorInvalidHandle"}, {500, "hipErrorNotFound"},
      {700, "hipErrorIllegalAddress"}, {701, "hipErrorLaunchOutOfResources"}, {719, "hipErrorLaunchFailure"},
      {999, "hipErrorUnknown"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
    if (names[i].code == error) return names[i].name;
  return "hipErrorUnknown";
}
