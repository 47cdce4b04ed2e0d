/* Loading the CUDA driver (CUDA Driver API reference: initialization,
 * device management, primary contexts) once per process (docs/runtime.md,
 * "GPU launch"). The driver is touched only when a kernel with cuda
 * variants is selected or when the compiler asks about devices. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_cuda.h"

#define DEFAULT_DRIVER "libcuda.so.1"

static const char symbol_names[] = TSR_CUDA_SYMBOLS(TSR_DL_NAME) TSR_CUDA_OPTIONAL_SYMBOLS(TSR_DL_NAME);
enum {
  REQUIRED = 0 TSR_CUDA_SYMBOLS(TSR_DL_COUNT),
  SYMBOLS = REQUIRED TSR_CUDA_OPTIONAL_SYMBOLS(TSR_DL_COUNT)
};
_Static_assert(sizeof(tsr_cuda_api) == SYMBOLS * sizeof(void*), "one pointer per symbol");

static tsr_cuda_driver driver = {.gpu = {.lock = PTHREAD_MUTEX_INITIALIZER}};

/* The loaded table's, without loading: load reports with it too. */
const char* tsr_cuda_error_name(int r) {
  const char* name = NULL;
  if (!driver.api.cuGetErrorName || driver.api.cuGetErrorName(r, &name) != 0) name = NULL;
  return name;
}

static void load(tsr_gpu_driver* g) {
  tsr_cuda_driver* d = &driver;
  const char* path = g->path[0] ? g->path : DEFAULT_DRIVER;
  g->status = TSR_ERROR_NO_DEVICE;
  g->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!g->library) {
    snprintf(g->why, sizeof g->why, "no CUDA driver (%.100s not found)", path);
    return;
  }
  const char* missing = tsr_dl_resolve(g->library, symbol_names, SYMBOLS, REQUIRED, &d->api);
  if (missing) {
    snprintf(g->why, sizeof g->why, "CUDA driver %.80s lacks %s (driver too old)", path, missing);
    return;
  }
  g->calls = (tsr_gpu_calls){d->api.cuModuleLoadData, d->api.cuModuleGetFunction, d->api.cuModuleUnload,
                             d->api.cuMemAlloc_v2,    d->api.cuMemFree_v2,        d->api.cuMemcpyHtoD_v2,
                             d->api.cuMemcpyDtoH_v2,  d->api.cuCtxSynchronize,    d->api.cuLaunchKernel};
  char text[80];
  CUresult r = d->api.cuInit(0);
  if (r == 0) r = d->api.cuDeviceGetCount(&g->device_count);
  if (r != 0) {
    tsr_gpu_error_text(&tsr_gpu_cuda, r, text, sizeof text);
    snprintf(g->why, sizeof g->why, "CUDA driver present but cuInit failed: %s", text);
    g->device_count = 0;
    return;
  }
  d->api.cuDriverGetVersion(&g->driver_version);
  if (g->device_count > 0) d->devices = (tsr_cuda_device*)calloc((size_t)g->device_count, sizeof *d->devices);
  if (g->device_count <= 0 || !d->devices) {
    snprintf(g->why, sizeof g->why, "no CUDA device");
    g->device_count = 0;
    return;
  }
  for (int i = 0; i < g->device_count; ++i) {
    tsr_cuda_device* dev = &d->devices[i];
    int major = 0, minor = 0;
    /* A device that does not answer keeps cc 0: no variant selects it. */
    if (d->api.cuDeviceGet(&dev->handle, i) == 0 &&
        d->api.cuDeviceGetAttribute(&major, TSR_CU_ATTR_CC_MAJOR, dev->handle) == 0 &&
        d->api.cuDeviceGetAttribute(&minor, TSR_CU_ATTR_CC_MINOR, dev->handle) == 0)
      dev->cc = major * 10 + minor;
  }
  g->status = TSR_OK;
}

tsr_cuda_driver* tsr_cuda_driver_get(void) {
  tsr_gpu_driver_once(&driver.gpu, load);
  return &driver;
}

static void release(tsr_gpu_driver* g) {
  tsr_cuda_driver* d = &driver;
  for (int i = 0; i < g->device_count; ++i)
    if (d->devices[i].context_ready) d->api.cuDevicePrimaryCtxRelease_v2(d->devices[i].handle);
  free(d->devices);
}

void tsr_cuda_use_driver_for_tests(const char* path) {
  tsr_gpu_driver_reset(&driver.gpu, sizeof driver, release, path);
}

tsr_status tsr_cuda_push(tsr_cuda_driver* d, int device, tsr_status phase, char* msg, size_t msg_size) {
  tsr_cuda_device* dev = &d->devices[device];
  if (!__atomic_load_n(&dev->context_ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&d->gpu.lock);
    CUresult r = dev->context_ready ? 0 : d->api.cuDevicePrimaryCtxRetain(&dev->context, dev->handle);
    if (r == 0) __atomic_store_n(&dev->context_ready, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&d->gpu.lock);
    if (r != 0)
      return tsr_gpu_fail(&tsr_gpu_cuda, r, TSR_ERROR_NO_DEVICE, "cuDevicePrimaryCtxRetain", device, msg, msg_size);
  }
  CUresult r = d->api.cuCtxPushCurrent_v2(dev->context);
  return r ? tsr_gpu_fail(&tsr_gpu_cuda, r, phase, "cuCtxPushCurrent", device, msg, msg_size) : TSR_OK;
}

void tsr_cuda_pop(tsr_cuda_driver* d) {
  CUcontext popped;
  d->api.cuCtxPopCurrent_v2(&popped);
}

/* ---- the compiler's view (tesserart_compiler.h, tsr_internal.h) ---------- */
tsr_status tsr_cuda_probe(int device, int* out_cc) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  if (d->gpu.status != TSR_OK || device < 0 || device >= d->gpu.device_count) return TSR_ERROR_NO_DEVICE;
  *out_cc = d->devices[device].cc;
  return TSR_OK;
}

int tsr_cuda_device_count(void) { return tsr_cuda_driver_get()->gpu.device_count; }

const char* tsr_cuda_unavailable_reason(void) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  return d->gpu.status == TSR_OK ? "" : d->gpu.why;
}

tsr_status tsr_cuda_describe(int device, tsr_cuda_device_desc* out) {
  tsr_cuda_driver* d = tsr_cuda_driver_get();
  if (!out) return TSR_ERROR_NULL_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (tsr_cuda_probe(device, &out->compute_capability) != TSR_OK) return TSR_ERROR_NO_DEVICE;
  out->driver_version = d->gpu.driver_version;
  CUresult r = d->api.cuDeviceGetName(out->name, (int)sizeof out->name - 1, d->devices[device].handle);
  return r ? tsr_cuda_status(r, TSR_ERROR_NO_DEVICE) : TSR_OK;
}

void* tsr_cuda_driver_symbol(const char* name) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  return d->gpu.library && name ? dlsym(d->gpu.library, name) : NULL;
}
