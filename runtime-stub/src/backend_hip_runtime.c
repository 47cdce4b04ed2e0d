/* Loading the HIP runtime (HIP API reference: initialization, device
 * management, error handling; LLVM AMDGPUUsage "Target ID" for the
 * gcnArchName syntax) once per process (docs/targets-hip.md). The runtime
 * is touched only when a kernel with hip variants is selected or when the
 * compiler asks about devices. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_hip.h"

static const char symbol_names[] = TSR_HIP_SYMBOLS(TSR_DL_NAME) TSR_HIP_OPTIONAL_SYMBOLS(TSR_DL_NAME);
enum {
  REQUIRED = 0 TSR_HIP_SYMBOLS(TSR_DL_COUNT),
  SYMBOLS = REQUIRED TSR_HIP_OPTIONAL_SYMBOLS(TSR_DL_COUNT)
};
_Static_assert(sizeof(tsr_hip_api) == SYMBOLS * sizeof(void*), "one pointer per symbol");
/* ROCm 5 and 6 install the unversioned name only with the -dev package. */
static const char library_names[] = "libamdhip64.so\0libamdhip64.so.6\0libamdhip64.so.5\0";

static tsr_hip_runtime runtime = {.gpu = {.lock = PTHREAD_MUTEX_INITIALIZER}};

/* The loaded table's, without loading: load reports with it too. */
const char* tsr_hip_error_name(int r) { return runtime.api.hipGetErrorName ? runtime.api.hipGetErrorName(r) : NULL; }

static void load(tsr_gpu_driver* g) {
  tsr_hip_runtime* h = &runtime;
  g->status = TSR_ERROR_NO_DEVICE;
  const char* name = g->path[0] ? g->path : library_names;
  for (; *name && !g->library; name += strlen(name) + 1)
    if ((g->library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) || g->path[0]) break;
  if (!g->library) {
    snprintf(g->why, sizeof g->why, "no AMD GPU: libamdhip64 not found (%.100s)",
             g->path[0] ? g->path : "libamdhip64.so, .so.6, .so.5");
    return;
  }
  const char* missing = tsr_dl_resolve(g->library, symbol_names, SYMBOLS, REQUIRED, &h->api);
  if (missing) {
    snprintf(g->why, sizeof g->why, "no AMD GPU: the HIP runtime lacks %s (ROCm too old)", missing);
    return;
  }
  g->calls = (tsr_gpu_calls){h->api.hipModuleLoadData, h->api.hipModuleGetFunction, h->api.hipModuleUnload,
                             h->api.hipMalloc,         h->api.hipFree,              h->api.hipMemcpyHtoD,
                             h->api.hipMemcpyDtoH,     h->api.hipDeviceSynchronize, h->api.hipModuleLaunchKernel};
  /* ROCm 5.2 without a GPU: hipInit fails (hipErrorInvalidDevice) and so does
   * the count (hipErrorNoDevice); the count's answer is the reason given. */
  char text[48] = "";
  int count = 0;
  tsr_hip_error r = h->api.hipInit(0), rc = h->api.hipGetDeviceCount(&count);
  if (rc != 0 || count <= 0) {
    if (rc) tsr_gpu_error_text(&tsr_gpu_hip, rc, text, sizeof text);
    snprintf(g->why, sizeof g->why, "no AMD GPU: hipGetDeviceCount reports 0%s%s%s", rc ? " (" : "", text,
             rc ? ")" : "");
    return;
  }
  if (r != 0) {
    tsr_gpu_error_text(&tsr_gpu_hip, r, text, sizeof text);
    snprintf(g->why, sizeof g->why, "no AMD GPU: hipInit failed with %d device(s) present: %s", count, text);
    return;
  }
  h->api.hipDriverGetVersion(&g->driver_version);
  char* props = (char*)calloc(1, TSR_HIP_PROP_BUFFER);
  h->devices = (tsr_hip_device*)calloc((size_t)count, sizeof *h->devices);
  if (!props || !h->devices) {
    free(props);
    snprintf(g->why, sizeof g->why, "no AMD GPU: out of memory reading the device properties");
    return;
  }
  for (int i = 0; i < count; ++i) {
    /* A device that does not answer keeps arch "": no variant selects it. */
    memset(props, 0, TSR_HIP_PROP_BUFFER);
    if (h->api.hipGetDeviceProperties(props, i) != 0) continue;
    memcpy(h->devices[i].name, props + TSR_HIP_R0000_NAME_OFFSET, TSR_HIP_STRING_SIZE - 1);
    memcpy(h->devices[i].arch, props + TSR_HIP_R0000_GCN_ARCH_NAME_OFFSET, TSR_HIP_STRING_SIZE - 1);
  }
  free(props);
  g->device_count = count;
  g->status = TSR_OK;
}

tsr_hip_runtime* tsr_hip_runtime_get(void) {
  tsr_gpu_driver_once(&runtime.gpu, load);
  return &runtime;
}

static void release(tsr_gpu_driver* g) {
  (void)g;
  free(runtime.devices);
}

void tsr_hip_use_runtime_for_tests(const char* path) {
  tsr_gpu_driver_reset(&runtime.gpu, sizeof runtime, release, path);
}

tsr_status tsr_hip_enter(tsr_hip_runtime* h, int device, int* saved, tsr_status phase, char* msg, size_t msg_size) {
  const char* what = "hipGetDevice";
  tsr_hip_error r = h->api.hipGetDevice(saved);
  if (r == 0 && *saved == device) return TSR_OK;
  if (r == 0) what = "hipSetDevice", r = h->api.hipSetDevice(device);
  return r ? tsr_gpu_fail(&tsr_gpu_hip, r, phase, what, device, msg, msg_size) : TSR_OK;
}

void tsr_hip_restore(tsr_hip_runtime* h, int saved) {
  int now;
  if (h->api.hipGetDevice(&now) == 0 && now != saved) h->api.hipSetDevice(saved);
}

/* ---- the compiler's view (tesserart_compiler.h, tsr_internal.h) ---------- */
int tsr_hip_device_count(void) { return tsr_hip_runtime_get()->gpu.device_count; }

const char* tsr_hip_unavailable_reason(void) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  return h->gpu.status == TSR_OK ? "" : h->gpu.why;
}

tsr_status tsr_hip_describe(int device, tsr_hip_device_desc* out) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  if (!out) return TSR_ERROR_NULL_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (h->gpu.status != TSR_OK || device < 0 || device >= h->gpu.device_count) return TSR_ERROR_NO_DEVICE;
  memcpy(out->name, h->devices[device].name, sizeof out->name);
  memcpy(out->arch, h->devices[device].arch, sizeof out->arch);
  out->driver_version = h->gpu.driver_version;
  return TSR_OK;
}

void* tsr_hip_runtime_symbol(const char* name) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  return h->gpu.library && name ? dlsym(h->gpu.library, name) : NULL;
}
