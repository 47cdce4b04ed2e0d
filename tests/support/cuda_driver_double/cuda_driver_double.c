/* TEST DOUBLE of the CUDA driver (libcuda.so.1), for the unit tests only:
 * the subset of the CUDA Driver API that libtesserart calls, with the
 * behaviour the stub relies on (contexts must be current, a cubin loads only
 * on its exact compute capability, PTX only on a device at least its target,
 * dynamic shared memory above 48 KiB needs the function attribute), every
 * call recorded with its arguments, and failures injectable per function.
 * It runs no GPU code: an image declaring op=add adds two f32 arrays on the
 * host when the launch's addresses are this double's own allocations.
 * Control interface: cuda_driver_double.h; overview: README.md. */
#include "cuda_driver_double.h"

#include <unistd.h>

#define DOUBLE_CALL cudadouble_call
#include "../gpu_double_common.h"

typedef int CUresult;
enum {
  OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_DEVICE = 101,
  INVALID_IMAGE = 200, INVALID_CONTEXT = 201, NO_BINARY_FOR_GPU = 209, INVALID_PTX = 218,
  INVALID_HANDLE = 400, NOT_FOUND = 500
};

typedef struct context { int device; int retained; } context;
static int initialized, device_count, device_cc[CUDADOUBLE_MAX_DEVICES];
static context contexts[CUDADOUBLE_MAX_DEVICES];
static _Thread_local int stack[16];
static _Thread_local int depth;

/* ---- control interface ---------------------------------------------------- */
EXPORT void cudadouble_reset(void) {
  pthread_mutex_lock(&lock);
  common_reset();
  memset(modules, 0, sizeof modules);
  memset(contexts, 0, sizeof contexts);
  module_count = initialized = device_count = 0;
  depth = 0;
  pthread_mutex_unlock(&lock);
}

EXPORT void cudadouble_set_devices(int count, const int* cc) {
  pthread_mutex_lock(&lock);
  device_count = count < CUDADOUBLE_MAX_DEVICES ? count : CUDADOUBLE_MAX_DEVICES;
  for (int i = 0; i < device_count; ++i) {
    device_cc[i] = cc[i];
    contexts[i].device = i;
  }
  pthread_mutex_unlock(&lock);
}

EXPORT void cudadouble_fail(const char* fn, int result, int skip, int times) { common_fail(fn, result, skip, times); }

EXPORT void cudadouble_set_load_delay(unsigned us) { __atomic_store_n(&load_delay_us, us, __ATOMIC_RELAXED); }

EXPORT size_t cudadouble_call_count(void) {
  pthread_mutex_lock(&lock);
  size_t n = log_size;
  pthread_mutex_unlock(&lock);
  return n;
}

EXPORT int cudadouble_call_at(size_t i, cudadouble_call* out) { return common_call_at(i, out); }

EXPORT int cudadouble_context_depth(void) { return depth; }

/* ---- recording, failures, state (all under lock) --------------------------- */
static int current_device(void) { return depth ? stack[depth - 1] : -1; }

/* Enter: lock, record the call, apply an injected failure or the common checks. */
#define ENTER(name, needs_context, ...)                                               \
  const unsigned long long call_args[] = {__VA_ARGS__};                              \
  pthread_mutex_lock(&lock);                                                         \
  cudadouble_call* call = record(name, sizeof call_args / sizeof *call_args, call_args, current_device()); \
  CUresult rc = injected(name);                                                      \
  if (!rc && !initialized && strcmp(name, "cuInit") != 0) rc = NOT_INITIALIZED;      \
  if (!rc && (needs_context) && current_device() < 0) rc = INVALID_CONTEXT;          \
  if (rc) return leave(call, rc)

/* ---- the CUDA driver API subset -------------------------------------------- */
EXPORT CUresult cuInit(unsigned flags) {
  ENTER("cuInit", 0, flags);
  initialized = 1;
  return leave(call, OK);
}

EXPORT CUresult cuDriverGetVersion(int* version) {
  ENTER("cuDriverGetVersion", 0, U(version));
  *version = 13000;
  return leave(call, OK);
}

EXPORT CUresult cuDeviceGetCount(int* count) {
  ENTER("cuDeviceGetCount", 0, U(count));
  *count = device_count;
  return leave(call, OK);
}

EXPORT CUresult cuDeviceGet(int* device, int ordinal) {
  ENTER("cuDeviceGet", 0, U(device), (unsigned long long)ordinal);
  if (ordinal < 0 || ordinal >= device_count) return leave(call, INVALID_DEVICE);
  *device = ordinal;
  return leave(call, OK);
}

EXPORT CUresult cuDeviceGetName(char* name, int size, int device) {
  ENTER("cuDeviceGetName", 0, U(name), (unsigned long long)size, (unsigned long long)device);
  if (device < 0 || device >= device_count) return leave(call, INVALID_DEVICE);
  snprintf(name, (size_t)size, "CUDA driver double device %d", device);
  return leave(call, OK);
}

EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, int device) {
  ENTER("cuDeviceGetAttribute", 0, U(value), (unsigned long long)attribute, (unsigned long long)device);
  if (device < 0 || device >= device_count) return leave(call, INVALID_DEVICE);
  *value = attribute == 75 ? device_cc[device] / 10 : attribute == 76 ? device_cc[device] % 10 : 0;
  return leave(call, OK);
}

EXPORT CUresult cuDevicePrimaryCtxRetain(void** ctx, int device) {
  ENTER("cuDevicePrimaryCtxRetain", 0, U(ctx), (unsigned long long)device);
  if (device < 0 || device >= device_count) return leave(call, INVALID_DEVICE);
  contexts[device].retained++;
  *ctx = &contexts[device];
  return leave(call, OK);
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  ENTER("cuDevicePrimaryCtxRelease_v2", 0, (unsigned long long)device);
  if (device < 0 || device >= device_count || contexts[device].retained == 0) return leave(call, INVALID_CONTEXT);
  contexts[device].retained--;
  return leave(call, OK);
}

EXPORT CUresult cuCtxPushCurrent_v2(void* ctx) {
  ENTER("cuCtxPushCurrent_v2", 0, U(ctx));
  context* c = (context*)ctx;
  if (c < contexts || c >= contexts + device_count || !c->retained || depth == 16)
    return leave(call, INVALID_CONTEXT);
  stack[depth++] = c->device;
  return leave(call, OK);
}

EXPORT CUresult cuCtxPopCurrent_v2(void** ctx) {
  ENTER("cuCtxPopCurrent_v2", 1, U(ctx));
  *ctx = &contexts[stack[--depth]];
  return leave(call, OK);
}

EXPORT CUresult cuCtxSynchronize(void) {
  ENTER("cuCtxSynchronize", 1, 0);
  return leave(call, OK);
}

/* Never called by the stub: exported so that a call would be recorded. */
EXPORT CUresult cuStreamSynchronize(void* stream) {
  ENTER("cuStreamSynchronize", 1, U(stream));
  return leave(call, OK);
}

/* Images are text: "tsr-cuda-double kind=cubin|ptx arch=NN params=N [op=add] [entry=NAME]". */
EXPORT CUresult cuModuleLoadData(void** out, const void* image) {
  unsigned delay = __atomic_load_n(&load_delay_us, __ATOMIC_RELAXED);
  if (delay) usleep(delay);   /* outside the lock: racing loads overlap here */
  ENTER("cuModuleLoadData", 1, U(out), U(image));
  const char* marker = strstr((const char*)image, "tsr-cuda-double ");
  char kind[16] = "", arch[16] = "";
  if (!marker || !field(marker, "kind=", kind, sizeof kind) || !field(marker, "arch=", arch, sizeof arch))
    return leave(call, INVALID_IMAGE);
  snprintf(call->text, sizeof call->text, "%.*s", (int)strcspn(marker, "\n"), marker);
  int cc = device_cc[current_device()], need = atoi(arch);
  if (strcmp(kind, "cubin") == 0 && need != cc) return leave(call, NO_BINARY_FOR_GPU);
  if (strcmp(kind, "ptx") == 0 && need > cc) return leave(call, INVALID_PTX);
  module* m = add_module(marker, current_device());
  if (!m) return leave(call, OUT_OF_MEMORY);
  *out = m;
  call->args[0] = U(m);
  return leave(call, OK);
}

EXPORT CUresult cuModuleUnload(void* handle) {
  ENTER("cuModuleUnload", 0, U(handle));
  module* m = live_module(handle);
  if (!m) return leave(call, INVALID_HANDLE);
  m->live = 0;
  return leave(call, OK);
}

EXPORT CUresult cuModuleGetFunction(void** out, void* handle, const char* name) {
  ENTER("cuModuleGetFunction", 1, U(out), U(handle), U(name));
  snprintf(call->text, sizeof call->text, "%s", name);
  module* m = live_module(handle);
  if (!m) return leave(call, INVALID_HANDLE);
  if (m->entry[0] && strcmp(m->entry, name) != 0) return leave(call, NOT_FOUND);
  *out = &m->fn;
  call->args[0] = U(&m->fn);
  return leave(call, OK);
}

EXPORT CUresult cuFuncSetAttribute(void* fn, int attribute, int value) {
  ENTER("cuFuncSetAttribute", 0, U(fn), (unsigned long long)attribute, (unsigned long long)value);
  function* f = (function*)fn;
  if (!f || !live_module(f->module) || value < 0 || value > 227 * 1024) return leave(call, INVALID_VALUE);
  if (attribute == 8) f->max_dynamic_shared = value;
  return leave(call, OK);
}

EXPORT CUresult cuMemAlloc_v2(unsigned long long* out, size_t bytes) {
  ENTER("cuMemAlloc_v2", 1, U(out), bytes);
  if (bytes == 0) return leave(call, INVALID_VALUE);
  uint8_t* p = allocate(bytes);
  if (!p) return leave(call, OUT_OF_MEMORY);
  *out = U(p);
  call->args[0] = *out;
  return leave(call, OK);
}

EXPORT CUresult cuMemFree_v2(unsigned long long address) {
  ENTER("cuMemFree_v2", 1, address);
  allocation* a = find_allocation(address, 0);
  if (!a || U(a->p) != address) return leave(call, INVALID_VALUE);
  free(a->p);
  a->p = NULL;
  return leave(call, OK);
}

EXPORT CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void* src, size_t bytes) {
  ENTER("cuMemcpyHtoD_v2", 1, dst, U(src), bytes);
  if (!find_allocation(dst, bytes)) return leave(call, INVALID_VALUE);
  memcpy((void*)(uintptr_t)dst, src, bytes);
  return leave(call, OK);
}

EXPORT CUresult cuMemcpyDtoH_v2(void* dst, unsigned long long src, size_t bytes) {
  ENTER("cuMemcpyDtoH_v2", 1, U(dst), src, bytes);
  if (!find_allocation(src, bytes)) return leave(call, INVALID_VALUE);
  memcpy(dst, (const void*)(uintptr_t)src, bytes);
  return leave(call, OK);
}

EXPORT CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  ENTER("cuLaunchKernel", 1, U(fn), gx, gy, gz, bx, by, bz, shared, U(stream));
  function* f = (function*)fn;
  if (!f || !live_module(f->module)) return leave(call, INVALID_HANDLE);
  if (f->module->device != current_device()) return leave(call, INVALID_CONTEXT);
  if (!gx || !gy || !gz || !bx || !by || !bz || (uint64_t)bx * by * bz > 1024 || extra ||
      (f->module->params && !params))
    return leave(call, INVALID_VALUE);
  if (shared > 48 * 1024 && (int)shared > f->max_dynamic_shared) return leave(call, INVALID_VALUE);
  for (int i = 0; i < f->module->params && call->arg_count < CUDADOUBLE_MAX_ARGS; ++i)
    memcpy(&call->args[call->arg_count++], params[i], 8);
  if (f->module->add && f->module->params == 4) emulate_add(call->args + 9);
  return leave(call, OK);
}

EXPORT CUresult cuGetErrorName(CUresult error, const char** name) {
  static const struct { int code; const char* name; } names[] = {
      {0, "CUDA_SUCCESS"}, {1, "CUDA_ERROR_INVALID_VALUE"}, {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {3, "CUDA_ERROR_NOT_INITIALIZED"}, {4, "CUDA_ERROR_DEINITIALIZED"}, {34, "CUDA_ERROR_STUB_LIBRARY"},
      {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"}, {100, "CUDA_ERROR_NO_DEVICE"}, {101, "CUDA_ERROR_INVALID_DEVICE"},
      {200, "CUDA_ERROR_INVALID_IMAGE"}, {201, "CUDA_ERROR_INVALID_CONTEXT"},
      {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"}, {218, "CUDA_ERROR_INVALID_PTX"},
      {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"}, {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
      {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"}, {400, "CUDA_ERROR_INVALID_HANDLE"},
      {500, "CUDA_ERROR_NOT_FOUND"}, {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"}, {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
      {719, "CUDA_ERROR_LAUNCH_FAILED"}, {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
      {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"}, {999, "CUDA_ERROR_UNKNOWN"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
    if (names[i].code == error) {
      *name = names[i].name;
      return OK;
    }
  *name = NULL;
  return INVALID_VALUE;
}
