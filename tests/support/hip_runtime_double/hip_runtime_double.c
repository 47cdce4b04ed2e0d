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

#include <unistd.h>

#define DOUBLE_CALL hipdouble_call
#include "../gpu_double_common.h"

typedef int hipError_t;
enum {
  OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_DEVICE_FUNCTION = 98,
  NO_DEVICE = 100, INVALID_DEVICE = 101, INVALID_IMAGE = 200, NO_BINARY_FOR_GPU = 209, INVALID_HANDLE = 400,
  NOT_FOUND = 500
};

void hipdouble_write_props(void* out, const char* name, const char* arch);   /* hip_device_props.c */


static int initialized, device_count;
static char device_arch[HIPDOUBLE_MAX_DEVICES][64];
static unsigned generation;
/* The thread's current device, valid while its generation is the double's. */
static _Thread_local int current, current_generation;

/* ---- control interface ---------------------------------------------------- */
EXPORT void hipdouble_reset(void) {
  pthread_mutex_lock(&lock);
  common_reset();
  memset(modules, 0, sizeof modules);
  module_count = initialized = device_count = 0;
  ++generation;
  pthread_mutex_unlock(&lock);
}

EXPORT void hipdouble_set_devices(int count, const char* const* arch) {
  pthread_mutex_lock(&lock);
  device_count = count < HIPDOUBLE_MAX_DEVICES ? count : HIPDOUBLE_MAX_DEVICES;
  for (int i = 0; i < device_count; ++i) snprintf(device_arch[i], sizeof device_arch[i], "%s", arch[i]);
  pthread_mutex_unlock(&lock);
}

EXPORT void hipdouble_fail(const char* fn, int result, int skip, int times) { common_fail(fn, result, skip, times); }
EXPORT void hipdouble_set_load_delay(unsigned us) { __atomic_store_n(&load_delay_us, us, __ATOMIC_RELAXED); }
EXPORT int hipdouble_call_at(size_t i, hipdouble_call* out) { return common_call_at(i, out); }

/* ---- state (under lock) ------------------------------------------------------ */
static int current_device(void) { return current_generation == (int)generation ? current : 0; }

/* Enter: lock, record the call, apply an injected failure or the init check. */
#define ENTER(name, ...)                                                                              \
  const unsigned long long call_args[] = {__VA_ARGS__};                                              \
  pthread_mutex_lock(&lock);                                                                         \
  hipdouble_call* call = record(name, sizeof call_args / sizeof *call_args, call_args, current_device()); \
  hipError_t rc = injected(name);                                                                    \
  if (!rc && !initialized && strcmp(name, "hipInit") != 0 && strcmp(name, "hipGetDeviceCount") != 0) \
    rc = NOT_INITIALIZED;                                                                            \
  if (rc) return leave(call, rc)

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
EXPORT hipError_t hipModuleLoadData(void** out, const void* image) {
  unsigned delay = __atomic_load_n(&load_delay_us, __ATOMIC_RELAXED);
  if (delay) usleep(delay);   /* outside the lock: racing loads overlap here */
  ENTER("hipModuleLoadData", U(out), U(image));
  const char* marker = strstr((const char*)image, "tsr-hip-double ");
  char target[64] = "";
  if (!marker || !field(marker, "target=", target, sizeof target)) return leave(call, INVALID_IMAGE);
  snprintf(call->text, sizeof call->text, "%.*s", (int)strcspn(marker, "\n"), marker);
  if (!runs_on(target, device_arch[current_device()])) return leave(call, NO_BINARY_FOR_GPU);
  module* m = add_module(marker, current_device());
  if (!m) return leave(call, OUT_OF_MEMORY);
  *out = m;
  call->args[0] = U(m);
  return leave(call, OK);
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
  if (!(*out = allocate(bytes))) return leave(call, OUT_OF_MEMORY);
  call->args[0] = U(*out);
  return leave(call, OK);
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
