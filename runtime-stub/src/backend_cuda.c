/* CUDA backend (CUDA Driver API reference: module management, execution
 * control; docs/runtime.md, "GPU launch"). A kernel is loaded per device on
 * its first use there, exactly once, with the variant selected for that
 * device's compute capability. tsr_kernel_launch_device passes the caller's
 * device addresses and stream to cuLaunchKernel unchanged: no copy, no
 * synchronization. tsr_kernel_launch is the copying convenience: device
 * memory, copies in, launch, synchronize, copies out. Launch geometry comes
 * from the variant metadata cuda.block / cuda.grid / cuda.shared_bytes. */
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
  if (d->status != TSR_OK || device >= d->device_count) return TSR_ERROR_NO_DEVICE;
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

/* Loads variant vi (its blob at blob/size) on `device` into `slot`. */
static tsr_status load_slot(struct tsr_kernel* k, int device, size_t variant, const void* blob, size_t size,
                            const tsr_variant_info* vi, tsr_gpu_slot* slot, char* msg, size_t msg_size) {
  tsr_cuda_driver* d = tsr_cuda_driver_get();
  unsigned shared;
  tsr_status s = tsr_gpu_launch_metadata(k->archive, k->index, variant, "cuda", &slot->block, &slot->grid, &shared,
                                         msg, msg_size);
  if (s != TSR_OK) return s;
  char* text = NULL;
  if (vi->artifact_kind == TSR_ARTIFACT_PTX) {   /* cuModuleLoadData wants NUL-terminated PTX */
    if (!(text = (char*)malloc(size + 1))) return TSR_ERROR_OUT_OF_MEMORY;
    memcpy(text, blob, size);
    text[size] = 0;
  }
  s = tsr_cuda_push(d, device, TSR_ERROR_LOAD_FAILED, msg, msg_size);
  if (s != TSR_OK) {
    free(text);
    return s;
  }
  CUmodule module = NULL;
  CUfunction function = NULL;
  char what[96] = "cuModuleLoadData";
  CUresult r = d->api.module_load(&module, text ? text : blob);
  if (r == 0) {
    snprintf(what, sizeof what, "cuModuleGetFunction('%.48s')", vi->entry);
    r = d->api.module_function(&function, module, vi->entry);
  }
  /* Above 48 KiB of dynamic shared memory a launch needs the opt-in, once per function. */
  if (r == 0 && shared > TSR_CU_DEFAULT_SHARED_LIMIT) {
    snprintf(what, sizeof what, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d)", (int)shared);
    r = d->api.func_set_attribute(function, TSR_CU_FUNC_MAX_DYNAMIC_SHARED, (int)shared);
  }
  if (r != 0 && module) d->api.module_unload(module);
  tsr_cuda_pop(d);
  free(text);
  if (r != 0) return tsr_cuda_fail(d, r, TSR_ERROR_LOAD_FAILED, what, device, msg, msg_size);
  slot->module = module;
  slot->function = function;
  slot->shared_bytes = shared;
  __atomic_store_n(&slot->ready, 1, __ATOMIC_RELEASE);
  return TSR_OK;
}

static void describe(int device, char* out, size_t size) {
  snprintf(out, size, "sm_%d", tsr_cuda_driver_get()->devices[device].cc);
}

static const tsr_gpu_backend cuda_gpu = {&tsr_backend_cuda, "CUDA", load_slot, describe};

static void cuda_unload(struct tsr_kernel* k) {
  tsr_gpu_kernel* ck = (tsr_gpu_kernel*)k->backend_state;
  if (!ck) return;
  tsr_cuda_driver* d = tsr_cuda_driver_get();
  for (int i = 0; i < ck->slot_count && ck->generation == d->generation; ++i)
    if (ck->slots[i].ready && tsr_cuda_push(d, i, TSR_ERROR_LOAD_FAILED, NULL, 0) == TSR_OK) {
      d->api.module_unload((CUmodule)ck->slots[i].module);
      tsr_cuda_pop(d);
    }
  tsr_gpu_kernel_free(k);
}

static tsr_status cuda_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi,
                            char* msg, size_t msg_size) {
  tsr_cuda_driver* d = tsr_cuda_driver_get();
  if (d->status != TSR_OK || k->options.device >= d->device_count) return TSR_ERROR_NO_DEVICE;
  tsr_status s = tsr_gpu_kernel_new(k, d->generation, d->device_count);
  if (s != TSR_OK) return s;
  tsr_gpu_slot* slot = &((tsr_gpu_kernel*)k->backend_state)->slots[k->options.device];
  s = load_slot(k, k->options.device, k->selection.variant, blob, size, vi, slot, msg, msg_size);
  if (s != TSR_OK) cuda_unload(k);
  return s;
}

/* tsr_kernel_launch: device copies of the buffers (a zero-byte one is
 * address 0), inputs copied in, launch on the legacy default stream,
 * synchronize, outputs copied back, everything freed. */
static CUresult run_copying(const struct tsr_kernel* k, const tsr_cuda_driver* d, const tsr_gpu_slot* slot,
                            const tsr_launch_args* args, CUdeviceptr* dev, void** params, const unsigned* g,
                            const unsigned* b, const char** what) {
  CUresult r = 0;
  size_t n = args->buffer_count;
  for (size_t i = 0; r == 0 && i < n; ++i) {
    size_t bytes = (size_t)args->required_bytes[i];
    if (bytes && (*what = "cuMemAlloc", r = d->api.mem_alloc(&dev[i], bytes)) == 0 && k->buffers[i].role == TSR_ROLE_IN)
      *what = "cuMemcpyHtoD", r = d->api.memcpy_htod(dev[i], args->host[i], bytes);
  }
  if (r == 0)
    *what = "cuLaunchKernel", r = d->api.launch((CUfunction)slot->function, g[0], g[1], g[2], b[0], b[1], b[2], slot->shared_bytes,
                                                NULL, params, NULL);
  if (r == 0) *what = "cuCtxSynchronize", r = d->api.ctx_synchronize();
  for (size_t i = 0; r == 0 && i < n; ++i)
    if (k->buffers[i].role == TSR_ROLE_OUT && args->required_bytes[i])
      *what = "cuMemcpyDtoH", r = d->api.memcpy_dtoh(args->host[i], dev[i], (size_t)args->required_bytes[i]);
  for (size_t i = 0; i < n; ++i)
    if (dev[i]) d->api.mem_free(dev[i]);
  return r;
}

enum { SMALL = 32 };

static tsr_status cuda_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  tsr_cuda_driver* d = tsr_cuda_driver_get();
  const tsr_gpu_kernel* ck = (const tsr_gpu_kernel*)k->backend_state;
  int device = args->device_ordinal;
  tsr_gpu_slot* slot;
  tsr_status s = tsr_gpu_slot_for(k, &cuda_gpu, d->generation, device, &slot, msg, msg_size);
  if (s != TSR_OK) return s;
  unsigned block[3], grid[3];
  s = tsr_gpu_launch_dims(k, "cuda", slot->block, slot->grid, ck->scalar_names, args, block, grid, msg, msg_size);
  if (s != TSR_OK) return s;
  /* One pointer per kernel parameter, to the caller's own values: device
   * addresses and scalars reach the kernel exactly as given. */
  size_t n = args->buffer_count, total = n + args->scalar_count;
  void* params_small[SMALL];
  CUdeviceptr dev_small[SMALL] = {0};
  void** params = total <= SMALL ? params_small : (void**)malloc(total * sizeof *params);
  CUdeviceptr* dev = n <= SMALL ? dev_small : (CUdeviceptr*)calloc(n, sizeof *dev);
  if (params && dev && (s = tsr_cuda_push(d, device, TSR_ERROR_LAUNCH_FAILED, msg, msg_size)) == TSR_OK) {
    for (size_t i = 0; i < n; ++i) params[i] = args->device ? (void*)&args->device[i] : (void*)&dev[i];
    for (size_t j = 0; j < args->scalar_count; ++j) params[n + j] = (void*)&args->scalars[j];
    const char* what = "cuLaunchKernel";
    CUresult r = args->device ? d->api.launch((CUfunction)slot->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                              slot->shared_bytes, (CUstream)args->stream, params, NULL)
                              : run_copying(k, d, slot, args, dev, params, grid, block, &what);
    tsr_cuda_pop(d);
    if (r != 0) s = tsr_cuda_fail(d, r, TSR_ERROR_LAUNCH_FAILED, what, device, msg, msg_size);
  } else if (!params || !dev) {
    s = TSR_ERROR_OUT_OF_MEMORY;
  }
  if (params != params_small) free(params);
  if (dev != dev_small) free(dev);
  return s;
}

const tsr_backend tsr_backend_cuda = {
    "cuda", "tsr_kernel_launch_device", 1, cuda_select, cuda_load, cuda_launch, cuda_unload,
};
