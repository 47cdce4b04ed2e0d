/* AMD HIP backend (HIP API reference: module management, execution control,
 * error handling; docs/targets-hip.md, docs/runtime.md "GPU launch"): what
 * HIP does its own way. A kernel is loaded per device on its first use there
 * with the code object whose target ID the device's gcnArchName satisfies;
 * loading and launching are the shared GPU code's (gpu_launch.c) through the
 * runtime's symbol table (tsr_hip.h). Launch geometry comes from the variant
 * metadata hip.block / hip.grid / hip.shared_bytes. HIP has no context
 * stack: each call makes the kernel's device current and puts the caller's
 * back. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_hip.h"

/* The code object whose target ID (hip.target_id, else the arch) the
 * device's satisfies, the one stating the most features when several do. */
static tsr_status hip_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o, size_t* out_variant,
                             const char** out_route) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  int device = o ? o->device : 0, best = -1;
  if (h->gpu.status != TSR_OK || device >= h->gpu.device_count) return TSR_ERROR_NO_DEVICE;
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return TSR_ERROR_CORRUPT;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    const char* target_id;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) != TSR_OK || strcmp(vi.target_kind, "hip") != 0 ||
        vi.artifact_kind != TSR_ARTIFACT_CODE_OBJECT || !tsr_select_wants_variant(o, a, kernel, v, vi.arch))
      continue;
    if (tsr_variant_metadata_find(a, kernel, v, "hip.target_id", &target_id) != TSR_OK) target_id = vi.arch;
    int features = tsr_hip_target_id_match(h->devices[device].arch, target_id);
    if (features > best) {
      best = features;
      *out_variant = v;
    }
  }
  if (best < 0) return TSR_ERROR_NO_VARIANT;
  *out_route = "code-object";
  return TSR_OK;
}

static tsr_gpu_driver* driver(void) { return &tsr_hip_runtime_get()->gpu; }

static tsr_status enter(int device, int* saved, tsr_status phase, char* msg, size_t msg_size) {
  return tsr_hip_enter(tsr_hip_runtime_get(), device, saved, phase, msg, msg_size);
}

static void leave(int saved) { tsr_hip_restore(tsr_hip_runtime_get(), saved); }

static void describe(int device, char* out, size_t size) {
  snprintf(out, size, "%.48s", tsr_hip_runtime_get()->devices[device].arch);
}

/* tsr_hip_error numbers from hip_runtime_api.h (stable across ROCm 5 and 6),
 * beyond those tsr_gpu_status maps for both vendors. */
static const unsigned short no_device_codes[] = {
    3,    /* hipErrorNotInitialized */
    4,    /* hipErrorDeinitialized */
    35,   /* hipErrorInsufficientDriver */
    100,  /* hipErrorNoDevice */
    101,  /* hipErrorInvalidDevice */
    0};
static const unsigned short load_codes[] = {
    98,   /* hipErrorInvalidDeviceFunction */
    200,  /* hipErrorInvalidImage */
    209,  /* hipErrorNoBinaryForGpu */
    218,  /* hipErrorInvalidKernelFile */
    303,  /* hipErrorSharedObjectInitFailed */
    500,  /* hipErrorNotFound: no such kernel in the module */
    0};

tsr_status tsr_hip_status(tsr_hip_error r, tsr_status phase) { return tsr_gpu_status(&tsr_gpu_hip, r, phase); }

/* HIP has no opt-in for dynamic shared memory (allow_shared NULL). */
const tsr_gpu_vendor tsr_gpu_hip = {
    {"hip", "tsr_kernel_launch_device", 1, hip_select, tsr_gpu_load, tsr_gpu_launch, tsr_gpu_unload},
    "HIP",
    driver,
    enter,
    leave,
    tsr_hip_error_name,
    "tsr_hip_error",
    no_device_codes,
    load_codes,
    NULL,
    describe,
    "hipModuleLoadData",
    "hipModuleGetFunction",
    "hipMalloc",
    "hipMemcpyHtoD",
    "hipModuleLaunchKernel",
    "hipDeviceSynchronize",
    "hipMemcpyDtoH",
};
