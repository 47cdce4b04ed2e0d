/* Loading the HIP runtime (HIP API reference: initialization, device
 * management, error handling; LLVM AMDGPUUsage "Target ID" for the
 * gcnArchName syntax) once per process, the mapping of tsr_hip_error codes to
 * tsr_status, and target-ID matching (docs/targets-hip.md, "Selection").
 * The runtime is touched only when a kernel with hip variants is selected
 * or when the compiler asks about devices. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_hip.h"

/* Names of the tsr_hip_api members, in member order; the last is optional. */
static const char api_names[] =
    "hipInit\0hipGetDeviceCount\0hipGetDeviceProperties\0hipGetDevice\0hipSetDevice\0hipModuleLoadData\0"
    "hipModuleUnload\0hipModuleGetFunction\0hipMalloc\0hipFree\0hipMemcpyHtoD\0hipMemcpyDtoH\0"
    "hipDeviceSynchronize\0hipModuleLaunchKernel\0hipDriverGetVersion\0hipGetErrorName\0";
enum { API_COUNT = sizeof(tsr_hip_api) / sizeof(void (*)(void)) };
/* ROCm 5 and 6 install the unversioned name only with the -dev package. */
static const char library_names[] = "libamdhip64.so\0libamdhip64.so.6\0libamdhip64.so.5\0";

/* Initialized once under `lock`, published by `ready` (acquire): a mutex
 * rather than pthread_once so tests can reset it (tsr_hip_use_runtime_for_tests). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ready;
static tsr_hip_runtime runtime;
static char runtime_path[256];   /* empty: library_names */

static void error_text(const tsr_hip_runtime* h, tsr_hip_error r, char* out, size_t size) {
  const char* name = h->api.error_name ? h->api.error_name(r) : NULL;
  snprintf(out, size, "%s (%d)", name ? name : "tsr_hip_error", r);
}

static void load(tsr_hip_runtime* h) {
  h->status = TSR_ERROR_NO_DEVICE;
  const char* name = runtime_path[0] ? runtime_path : library_names;
  for (; *name && !h->library; name += strlen(name) + 1)
    if ((h->library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) || runtime_path[0]) break;
  if (!h->library) {
    snprintf(h->why, sizeof h->why, "no AMD GPU: libamdhip64 not found (%.100s)",
             runtime_path[0] ? runtime_path : "libamdhip64.so, .so.6, .so.5");
    return;
  }
  name = api_names;
  for (int i = 0; i < API_COUNT; ++i, name += strlen(name) + 1) {
    void* fn = dlsym(h->library, name);
    if (!fn && i + 1 < API_COUNT) {
      snprintf(h->why, sizeof h->why, "no AMD GPU: the HIP runtime lacks %s (ROCm too old)", name);
      return;
    }
    memcpy((char*)&h->api + (size_t)i * sizeof fn, &fn, sizeof fn);
  }
  /* ROCm 5.2 without a GPU: hipInit fails (hipErrorInvalidDevice) and so does
   * the count (hipErrorNoDevice); the count's answer is the reason given. */
  char text[48] = "";
  int count = 0;
  tsr_hip_error r = h->api.init(0), rc = h->api.device_count(&count);
  if (rc != 0 || count <= 0) {
    if (rc) error_text(h, rc, text, sizeof text);
    snprintf(h->why, sizeof h->why, "no AMD GPU: hipGetDeviceCount reports 0%s%s%s", rc ? " (" : "", text,
             rc ? ")" : "");
    return;
  }
  if (r != 0) {
    error_text(h, r, text, sizeof text);
    snprintf(h->why, sizeof h->why, "no AMD GPU: hipInit failed with %d device(s) present: %s", count, text);
    return;
  }
  h->api.driver_version(&h->driver_version);
  char* props = (char*)calloc(1, TSR_HIP_PROP_BUFFER);
  h->devices = (tsr_hip_device*)calloc((size_t)count, sizeof *h->devices);
  if (!props || !h->devices) {
    free(props);
    snprintf(h->why, sizeof h->why, "no AMD GPU: out of memory reading the device properties");
    return;
  }
  for (int i = 0; i < count; ++i) {
    /* A device that does not answer keeps arch "": no variant selects it. */
    memset(props, 0, TSR_HIP_PROP_BUFFER);
    if (h->api.device_properties(props, i) != 0) continue;
    memcpy(h->devices[i].name, props + TSR_HIP_R0000_NAME_OFFSET, TSR_HIP_STRING_SIZE - 1);
    memcpy(h->devices[i].arch, props + TSR_HIP_R0000_GCN_ARCH_NAME_OFFSET, TSR_HIP_STRING_SIZE - 1);
  }
  free(props);
  h->device_count = count;
  h->status = TSR_OK;
}

tsr_hip_runtime* tsr_hip_runtime_get(void) {
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&lock);
    if (!ready) {
      load(&runtime);
      __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
  }
  return &runtime;
}

void tsr_hip_use_runtime_for_tests(const char* path) {
  pthread_mutex_lock(&lock);
  tsr_hip_runtime* h = &runtime;
  free(h->devices);
  if (h->library) dlclose(h->library);
  unsigned generation = h->generation + 1;
  memset(h, 0, sizeof *h);
  h->generation = generation;
  snprintf(runtime_path, sizeof runtime_path, "%s", path ? path : "");
  __atomic_store_n(&ready, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

tsr_status tsr_hip_enter(tsr_hip_runtime* h, int device, int* saved, tsr_status phase, char* msg, size_t msg_size) {
  const char* what = "hipGetDevice";
  tsr_hip_error r = h->api.get_device(saved);
  if (r == 0 && *saved == device) return TSR_OK;
  if (r == 0) what = "hipSetDevice", r = h->api.set_device(device);
  return r ? tsr_hip_fail(h, r, phase, what, device, msg, msg_size) : TSR_OK;
}

void tsr_hip_restore(tsr_hip_runtime* h, int saved) {
  int now;
  if (h->api.get_device(&now) == 0 && now != saved) h->api.set_device(saved);
}

/* tsr_hip_error numbers from hip_runtime_api.h (stable across ROCm 5 and 6). */
tsr_status tsr_hip_status(tsr_hip_error r, tsr_status phase) {
  switch (r) {
    case 0: return TSR_OK;
    case 1:    /* hipErrorInvalidValue */
    case 400:  /* hipErrorInvalidHandle: the caller's stream is the only handle from outside */
      return phase == TSR_ERROR_LAUNCH_FAILED ? TSR_ERROR_INVALID_ARGUMENT : phase;
    case 2: return TSR_ERROR_OUT_OF_MEMORY;   /* hipErrorOutOfMemory */
    case 3:    /* hipErrorNotInitialized */
    case 4:    /* hipErrorDeinitialized */
    case 35:   /* hipErrorInsufficientDriver */
    case 100:  /* hipErrorNoDevice */
    case 101:  /* hipErrorInvalidDevice */
      return TSR_ERROR_NO_DEVICE;
    case 98:   /* hipErrorInvalidDeviceFunction */
    case 200:  /* hipErrorInvalidImage */
    case 209:  /* hipErrorNoBinaryForGpu */
    case 218:  /* hipErrorInvalidKernelFile */
    case 303:  /* hipErrorSharedObjectInitFailed */
    case 500:  /* hipErrorNotFound: no such kernel in the module */
      return TSR_ERROR_LOAD_FAILED;
    default: return phase;
  }
}

tsr_status tsr_hip_fail(const tsr_hip_runtime* h, tsr_hip_error r, tsr_status phase, const char* what, int device,
                        char* msg, size_t msg_size) {
  char text[80];
  error_text(h, r, text, sizeof text);
  tsr_set_message(msg, msg_size, "%s failed on HIP device %d: %s", what, device, text);
  return tsr_hip_status(r, phase);
}

/* Whether `feature` ("xnack+") appears in the ":"-list `list` with its sign. */
static int has_feature(const char* list, const char* feature, size_t n) {
  while (*list == ':') {
    size_t m = strcspn(++list, ":");
    if (m == n && strncmp(list, feature, n) == 0) return 1;
    list += m;
  }
  return 0;
}

int tsr_hip_target_id_match(const char* device_id, const char* code_id) {
  size_t pd = strcspn(device_id, ":"), pc = strcspn(code_id, ":");
  int features = 0;
  if (pd == 0 || pd != pc || strncmp(device_id, code_id, pd) != 0) return -1;
  /* A feature the code states (+ or -) must be the device's; one it omits is "any". */
  for (const char* f = code_id + pc; *f == ':'; ++features) {
    size_t n = strcspn(++f, ":");
    if (n < 2 || (f[n - 1] != '+' && f[n - 1] != '-') || !has_feature(device_id + pd, f, n)) return -1;
    f += n;
  }
  return features;
}

/* ---- the compiler's view (tsr_internal.h) -------------------------------- */
int tsr_hip_device_count(void) { return tsr_hip_runtime_get()->device_count; }

const char* tsr_hip_unavailable_reason(void) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  return h->status == TSR_OK ? "" : h->why;
}

tsr_status tsr_hip_describe(int device, tsr_hip_device_desc* out) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  if (!out) return TSR_ERROR_NULL_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (h->status != TSR_OK || device < 0 || device >= h->device_count) return TSR_ERROR_NO_DEVICE;
  memcpy(out->name, h->devices[device].name, sizeof out->name);
  memcpy(out->arch, h->devices[device].arch, sizeof out->arch);
  out->driver_version = h->driver_version;
  return TSR_OK;
}

void* tsr_hip_runtime_symbol(const char* name) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  return h->library && name ? dlsym(h->library, name) : NULL;
}
