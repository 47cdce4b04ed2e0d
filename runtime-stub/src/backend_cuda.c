/* CUDA backend (CUDA Driver API reference: module management, execution
 * control, error handling; docs/runtime.md, "GPU launch"): what CUDA does
 * its own way. A kernel is loaded per device on its first use there with the
 * variant selected for that device's compute capability; loading and
 * launching are the shared GPU code's (gpu_launch.c) through the driver's
 * symbol table (tsr_cuda.h). Launch geometry comes from the variant metadata
 * cuda.block / cuda.grid / cuda.shared_bytes. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_cuda.h"

/* "sm_90" / "compute_80" -> 90 / 80; a one-letter suffix ("sm_90a",
 * "compute_100f") sets *exact: such code runs only on that capability.
 * -1 when s is not prefix + digits [+ 'a' | 'f']. */
static int arch_number(const char* s, const char* prefix, int* exact) {
  size_t p = strlen(prefix), n = 0;
  int64_t v;
  if (strncmp(s, prefix, p) != 0) return -1;
  while (s[p + n] >= '0' && s[p + n] <= '9') ++n;
  const char* rest = s + p + n;
  if (!tsr_cuda_parse_int(s + p, n, &v) || v > 100000 || (*rest && ((*rest != 'a' && *rest != 'f') || rest[1])))
    return -1;
  *exact = *rest != 0;
  return (int)v;
}

/* The cubin built for the device's exact compute capability, else the PTX
 * with the highest target (cuda.ptx_arch) the device meets. */
static tsr_status cuda_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                              size_t* out_variant, const char** out_route) {
  const tsr_cuda_driver* d = tsr_cuda_driver_get();
  int device = o ? o->device : 0;
  if (d->gpu.status != TSR_OK || device >= d->gpu.device_count) return TSR_ERROR_NO_DEVICE;
  int cc = d->devices[device].cc, best = 0, exact;
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return TSR_ERROR_CORRUPT;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    const char* target;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) != TSR_OK || strcmp(vi.target_kind, "cuda") != 0 ||
        !tsr_select_wants_variant(o, a, kernel, v, vi.arch))
      continue;
    if (vi.artifact_kind == TSR_ARTIFACT_CUBIN && arch_number(vi.arch, "sm_", &exact) == cc) {
      *out_variant = v;
      *out_route = "cubin";
      return TSR_OK;
    }
    if (vi.artifact_kind != TSR_ARTIFACT_PTX ||
        tsr_variant_metadata_find(a, kernel, v, "cuda.ptx_arch", &target) != TSR_OK)
      continue;
    int need = arch_number(target, "compute_", &exact);
    if (need > best && (exact ? need == cc : need <= cc)) {
      best = need;
      *out_variant = v;
    }
  }
  if (!best) return TSR_ERROR_NO_VARIANT;
  *out_route = "ptx-jit";
  return TSR_OK;
}

static tsr_gpu_driver* driver(void) { return &tsr_cuda_driver_get()->gpu; }

/* CUDA's current context is a stack: nothing of the caller's to save. */
static tsr_status enter(int device, int* saved, tsr_status phase, char* msg, size_t msg_size) {
  *saved = 0;
  return tsr_cuda_push(tsr_cuda_driver_get(), device, phase, msg, msg_size);
}

static void leave(int saved) {
  (void)saved;
  tsr_cuda_pop(tsr_cuda_driver_get());
}

/* Above 48 KiB of dynamic shared memory a launch needs the opt-in, once per function. */
static int allow_shared(void* function, unsigned bytes, char* what, size_t what_size) {
  snprintf(what, what_size, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d)", (int)bytes);
  return tsr_cuda_driver_get()->api.cuFuncSetAttribute(function, TSR_CU_FUNC_MAX_DYNAMIC_SHARED, (int)bytes);
}

static void describe(int device, char* out, size_t size) {
  snprintf(out, size, "sm_%d", tsr_cuda_driver_get()->devices[device].cc);
}

/* CUresult numbers from cuda.h (pinned by NVIDIA like ours), beyond those
 * tsr_gpu_status maps for both vendors. */
static const unsigned short no_device_codes[] = {
    3,    /* CUDA_ERROR_NOT_INITIALIZED */
    4,    /* CUDA_ERROR_DEINITIALIZED */
    34,   /* CUDA_ERROR_STUB_LIBRARY */
    46,   /* CUDA_ERROR_DEVICE_UNAVAILABLE */
    100,  /* CUDA_ERROR_NO_DEVICE */
    101,  /* CUDA_ERROR_INVALID_DEVICE */
    803,  /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
    804,  /* CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE */
    0};
static const unsigned short load_codes[] = {
    200,  /* CUDA_ERROR_INVALID_IMAGE */
    209,  /* CUDA_ERROR_NO_BINARY_FOR_GPU */
    218,  /* CUDA_ERROR_INVALID_PTX */
    221,  /* CUDA_ERROR_JIT_COMPILER_NOT_FOUND */
    222,  /* CUDA_ERROR_UNSUPPORTED_PTX_VERSION */
    223,  /* CUDA_ERROR_JIT_COMPILATION_DISABLED */
    500,  /* CUDA_ERROR_NOT_FOUND: no such entry in the module */
    0};

tsr_status tsr_cuda_status(CUresult r, tsr_status phase) { return tsr_gpu_status(&tsr_gpu_cuda, r, phase); }

const tsr_gpu_vendor tsr_gpu_cuda = {
    {"cuda", "tsr_kernel_launch_device", 1, cuda_select, tsr_gpu_load, tsr_gpu_launch, tsr_gpu_unload},
    "CUDA",
    driver,
    enter,
    leave,
    tsr_cuda_error_name,
    "CUresult",
    no_device_codes,
    load_codes,
    allow_shared,
    describe,
    "cuModuleLoadData",
    "cuModuleGetFunction('%.48s')",
    "cuMemAlloc",
    "cuMemcpyHtoD",
    "cuLaunchKernel",
    "cuCtxSynchronize",
    "cuMemcpyDtoH",
};
