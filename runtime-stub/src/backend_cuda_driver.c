/* Loading the CUDA driver (CUDA Driver API reference: initialization,
 * device management, primary contexts, error handling) once per process,
 * and the mapping of CUresult codes to tsr_status (docs/runtime.md, "GPU
 * launch"). The driver is touched only when a kernel with cuda variants is
 * selected or when the compiler asks about devices. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_cuda.h"

#define DEFAULT_DRIVER "libcuda.so.1"

/* Names of the tsr_cuda_api members, in member order; the last is optional. */
static const char api_names[] =
    "cuInit\0cuDriverGetVersion\0cuDeviceGetCount\0cuDeviceGet\0cuDeviceGetName\0"
    "cuDeviceGetAttribute\0cuDevicePrimaryCtxRetain\0cuDevicePrimaryCtxRelease_v2\0"
    "cuCtxPushCurrent_v2\0cuCtxPopCurrent_v2\0cuCtxSynchronize\0cuModuleLoadData\0"
    "cuModuleUnload\0cuModuleGetFunction\0cuFuncSetAttribute\0cuMemAlloc_v2\0cuMemFree_v2\0"
    "cuMemcpyHtoD_v2\0cuMemcpyDtoH_v2\0cuLaunchKernel\0cuGetErrorName\0";
enum { API_COUNT = sizeof(tsr_cuda_api) / sizeof(void (*)(void)) };

/* Initialized once under `lock`; `ready` (read with acquire) publishes it,
 * so the steady state takes no lock. A mutex rather than pthread_once, so
 * that tests can reset it (tsr_cuda_use_driver_for_tests). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready;
static tsr_cuda_driver driver;
static char driver_path[256];   /* empty: DEFAULT_DRIVER (kept out of .data: the stub's size budget) */

static void error_text(const tsr_cuda_driver* d, CUresult r, char* out, size_t size) {
  const char* name = NULL;
  if (!d->api.error_name || d->api.error_name(r, &name) != 0) name = NULL;
  snprintf(out, size, "%s (%d)", name ? name : "CUresult", r);
}

static void load(tsr_cuda_driver* d) {
  d->status = TSR_ERROR_NO_DEVICE;
  if (!driver_path[0]) memcpy(driver_path, DEFAULT_DRIVER, sizeof DEFAULT_DRIVER);
  d->library = dlopen(driver_path, RTLD_NOW | RTLD_LOCAL);
  if (!d->library) {
    snprintf(d->why, sizeof d->why, "no CUDA driver (%.100s not found)", driver_path);
    return;
  }
  const char* name = api_names;
  for (int i = 0; i < API_COUNT; ++i, name += strlen(name) + 1) {
    void* fn = dlsym(d->library, name);
    if (!fn && i + 1 < API_COUNT) {
      snprintf(d->why, sizeof d->why, "CUDA driver %.80s lacks %s (driver too old)", driver_path, name);
      return;
    }
    memcpy((char*)&d->api + (size_t)i * sizeof fn, &fn, sizeof fn);
  }
  char text[80];
  CUresult r = d->api.init(0);
  if (r == 0) r = d->api.device_count(&d->device_count);
  if (r != 0) {
    error_text(d, r, text, sizeof text);
    snprintf(d->why, sizeof d->why, "CUDA driver present but cuInit failed: %s", text);
    d->device_count = 0;
    return;
  }
  d->api.driver_version(&d->driver_version);
  if (d->device_count > 0) d->devices = (tsr_cuda_device*)calloc((size_t)d->device_count, sizeof *d->devices);
  if (d->device_count <= 0 || !d->devices) {
    snprintf(d->why, sizeof d->why, "no CUDA device");
    d->device_count = 0;
    return;
  }
  for (int i = 0; i < d->device_count; ++i) {
    tsr_cuda_device* dev = &d->devices[i];
    int major = 0, minor = 0;
    /* A device that does not answer keeps cc 0: no variant selects it. */
    if (d->api.device_get(&dev->handle, i) == 0 &&
        d->api.device_attribute(&major, TSR_CU_ATTR_CC_MAJOR, dev->handle) == 0 &&
        d->api.device_attribute(&minor, TSR_CU_ATTR_CC_MINOR, dev->handle) == 0)
      dev->cc = major * 10 + minor;
  }
  d->status = TSR_OK;
}

tsr_cuda_driver* tsr_cuda_driver_get(void) {
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&lock);
    if (!ready) {
      load(&driver);
      __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
  }
  return &driver;
}

void tsr_cuda_use_driver_for_tests(const char* path) {
  pthread_mutex_lock(&lock);
  tsr_cuda_driver* d = &driver;
  for (int i = 0; i < d->device_count; ++i)
    if (d->devices[i].context_ready) d->api.primary_release(d->devices[i].handle);
  free(d->devices);
  if (d->library) dlclose(d->library);
  unsigned generation = d->generation + 1;
  memset(d, 0, sizeof *d);
  d->generation = generation;
  snprintf(driver_path, sizeof driver_path, "%s", path ? path : "");
  __atomic_store_n(&ready, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

tsr_status tsr_cuda_push(tsr_cuda_driver* d, int device, tsr_status phase, char* msg, size_t msg_size) {
  tsr_cuda_device* dev = &d->devices[device];
  if (!__atomic_load_n(&dev->context_ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&lock);
    CUresult r = dev->context_ready ? 0 : d->api.primary_retain(&dev->context, dev->handle);
    if (r == 0) __atomic_store_n(&dev->context_ready, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    if (r != 0) return tsr_cuda_fail(d, r, TSR_ERROR_NO_DEVICE, "cuDevicePrimaryCtxRetain", device, msg, msg_size);
  }
  CUresult r = d->api.ctx_push(dev->context);
  return r ? tsr_cuda_fail(d, r, phase, "cuCtxPushCurrent", device, msg, msg_size) : TSR_OK;
}

void tsr_cuda_pop(tsr_cuda_driver* d) {
  CUcontext popped;
  d->api.ctx_pop(&popped);
}

/* CUresult numbers from cuda.h (pinned by NVIDIA like ours). */
tsr_status tsr_cuda_status(CUresult r, tsr_status phase) {
  switch (r) {
    case 0: return TSR_OK;
    case 1:    /* CUDA_ERROR_INVALID_VALUE */
    case 400:  /* CUDA_ERROR_INVALID_HANDLE: the caller's stream is the only handle from outside */
      return phase == TSR_ERROR_LAUNCH_FAILED ? TSR_ERROR_INVALID_ARGUMENT : phase;
    case 2: return TSR_ERROR_OUT_OF_MEMORY;   /* CUDA_ERROR_OUT_OF_MEMORY */
    case 3:    /* CUDA_ERROR_NOT_INITIALIZED */
    case 4:    /* CUDA_ERROR_DEINITIALIZED */
    case 34:   /* CUDA_ERROR_STUB_LIBRARY */
    case 46:   /* CUDA_ERROR_DEVICE_UNAVAILABLE */
    case 100:  /* CUDA_ERROR_NO_DEVICE */
    case 101:  /* CUDA_ERROR_INVALID_DEVICE */
    case 803:  /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
    case 804:  /* CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE */
      return TSR_ERROR_NO_DEVICE;
    case 200:  /* CUDA_ERROR_INVALID_IMAGE */
    case 209:  /* CUDA_ERROR_NO_BINARY_FOR_GPU */
    case 218:  /* CUDA_ERROR_INVALID_PTX */
    case 221:  /* CUDA_ERROR_JIT_COMPILER_NOT_FOUND */
    case 222:  /* CUDA_ERROR_UNSUPPORTED_PTX_VERSION */
    case 223:  /* CUDA_ERROR_JIT_COMPILATION_DISABLED */
    case 500:  /* CUDA_ERROR_NOT_FOUND: no such entry in the module */
      return TSR_ERROR_LOAD_FAILED;
    default: return phase;
  }
}

tsr_status tsr_cuda_fail(const tsr_cuda_driver* d, CUresult r, tsr_status phase, const char* what, int device,
                         char* msg, size_t msg_size) {
  char text[80];
  error_text(d, r, text, sizeof text);
  tsr_set_message(msg, msg_size, "%s failed on CUDA device %d: %s", what, device, text);
  return tsr_cuda_status(r, phase);
}

/* ---- the compiler's view (tsr_internal.h) -------------------------------- */
tsr_status tsr_cuda_probe(int device, int* out_cc) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  if (d->status != TSR_OK || device < 0 || device >= d->device_count) return TSR_ERROR_NO_DEVICE;
  *out_cc = d->devices[device].cc;
  return TSR_OK;
}

int tsr_cuda_device_count(void) { return tsr_cuda_driver_get()->device_count; }

const char* tsr_cuda_unavailable_reason(void) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  return d->status == TSR_OK ? "" : d->why;
}

tsr_status tsr_cuda_describe(int device, tsr_cuda_device_desc* out) {
  tsr_cuda_driver* d = tsr_cuda_driver_get();
  if (!out) return TSR_ERROR_NULL_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (tsr_cuda_probe(device, &out->compute_capability) != TSR_OK) return TSR_ERROR_NO_DEVICE;
  out->driver_version = d->driver_version;
  CUresult r = d->api.device_name(out->name, (int)sizeof out->name - 1, d->devices[device].handle);
  return r ? tsr_cuda_status(r, TSR_ERROR_NO_DEVICE) : TSR_OK;
}

void* tsr_cuda_driver_symbol(const char* name) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  return d->library && name ? dlsym(d->library, name) : NULL;
}
