/* AMD HIP backend (HIP API reference: module management, execution control;
 * docs/targets-hip.md, docs/runtime.md "GPU launch"). A kernel is loaded per
 * device on its first use there, exactly once, with the code object whose
 * target ID the device's gcnArchName satisfies. tsr_kernel_launch_device
 * passes the caller's device addresses and stream to hipModuleLaunchKernel
 * unchanged: no copy, no synchronization. tsr_kernel_launch is the copying
 * convenience: device memory, copies in, launch, synchronize, copies out.
 * Launch geometry comes from the variant metadata hip.block / hip.grid /
 * hip.shared_bytes. HIP has no context stack: each call makes the kernel's
 * device current and puts the caller's back. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_hip.h"

/* The code object whose target ID (hip.target_id, else the arch) the
 * device's satisfies, the one stating the most features when several do. */
static tsr_status hip_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o, size_t* out_variant,
                             const char** out_route) {
  const tsr_hip_runtime* h = tsr_hip_runtime_get();
  int device = o ? o->device : 0, best = -1;
  if (h->status != TSR_OK || device >= h->device_count) return TSR_ERROR_NO_DEVICE;
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

/* Loads `variant` (its blob at blob) on `device` into `slot`. */
static tsr_status load_slot(struct tsr_kernel* k, int device, size_t variant, const void* blob, size_t size,
                            const tsr_variant_info* vi, tsr_gpu_slot* slot, char* msg, size_t msg_size) {
  tsr_hip_runtime* h = tsr_hip_runtime_get();
  (void)size;   /* hipModuleLoadData reads the code object's size from its ELF headers */
  tsr_status s = tsr_gpu_launch_metadata(k->archive, k->index, variant, "hip", &slot->block, &slot->grid,
                                         &slot->shared_bytes, msg, msg_size);
  int saved;
  if (s != TSR_OK || (s = tsr_hip_enter(h, device, &saved, TSR_ERROR_LOAD_FAILED, msg, msg_size)) != TSR_OK)
    return s;
  tsr_hip_module module = NULL;
  tsr_hip_function function = NULL;
  const char* what = "hipModuleLoadData";
  tsr_hip_error r = h->api.module_load(&module, blob);
  if (r == 0) what = "hipModuleGetFunction", r = h->api.module_function(&function, module, vi->entry);
  if (r != 0 && module) h->api.module_unload(module);
  tsr_hip_restore(h, saved);
  if (r != 0) return tsr_hip_fail(h, r, TSR_ERROR_LOAD_FAILED, what, device, msg, msg_size);
  slot->module = module;
  slot->function = function;
  __atomic_store_n(&slot->ready, 1, __ATOMIC_RELEASE);
  return TSR_OK;
}

static void describe(int device, char* out, size_t size) {
  snprintf(out, size, "%.48s", tsr_hip_runtime_get()->devices[device].arch);
}

static const tsr_gpu_backend hip_gpu = {&tsr_backend_hip, "HIP", load_slot, describe};

static void hip_unload(struct tsr_kernel* k) {
  tsr_gpu_kernel* hk = (tsr_gpu_kernel*)k->backend_state;
  if (!hk) return;
  tsr_hip_runtime* h = tsr_hip_runtime_get();
  for (int i = 0; i < hk->slot_count && hk->generation == h->generation; ++i) {
    int saved;
    if (hk->slots[i].ready && tsr_hip_enter(h, i, &saved, TSR_ERROR_LOAD_FAILED, NULL, 0) == TSR_OK) {
      h->api.module_unload((tsr_hip_module)hk->slots[i].module);
      tsr_hip_restore(h, saved);
    }
  }
  tsr_gpu_kernel_free(k);
}

static tsr_status hip_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi, char* msg,
                           size_t msg_size) {
  tsr_hip_runtime* h = tsr_hip_runtime_get();
  if (h->status != TSR_OK || k->options.device >= h->device_count) return TSR_ERROR_NO_DEVICE;
  tsr_status s = tsr_gpu_kernel_new(k, h->generation, h->device_count);
  if (s != TSR_OK) return s;
  tsr_gpu_slot* slot = &((tsr_gpu_kernel*)k->backend_state)->slots[k->options.device];
  s = load_slot(k, k->options.device, k->selection.variant, blob, size, vi, slot, msg, msg_size);
  if (s != TSR_OK) hip_unload(k);
  return s;
}

/* tsr_kernel_launch: device copies of the buffers (a zero-byte one is
 * address 0), inputs copied in, launch on the null stream, synchronize,
 * outputs copied back, everything freed. */
static tsr_hip_error run_copying(const struct tsr_kernel* k, const tsr_hip_runtime* h, const tsr_gpu_slot* slot,
                              const tsr_launch_args* args, void** dev, void** params, const unsigned* g,
                              const unsigned* b, const char** what) {
  tsr_hip_error r = 0;
  size_t n = args->buffer_count;
  for (size_t i = 0; r == 0 && i < n; ++i) {
    size_t bytes = (size_t)args->required_bytes[i];
    if (bytes && (*what = "hipMalloc", r = h->api.mem_alloc(&dev[i], bytes)) == 0 && k->buffers[i].role == TSR_ROLE_IN)
      *what = "hipMemcpyHtoD", r = h->api.memcpy_htod(dev[i], args->host[i], bytes);
  }
  if (r == 0)
    *what = "hipModuleLaunchKernel", r = h->api.launch((tsr_hip_function)slot->function, g[0], g[1], g[2], b[0], b[1], b[2],
                                                       slot->shared_bytes, NULL, params, NULL);
  if (r == 0) *what = "hipDeviceSynchronize", r = h->api.device_synchronize();
  for (size_t i = 0; r == 0 && i < n; ++i)
    if (k->buffers[i].role == TSR_ROLE_OUT && args->required_bytes[i])
      *what = "hipMemcpyDtoH", r = h->api.memcpy_dtoh(args->host[i], dev[i], (size_t)args->required_bytes[i]);
  for (size_t i = 0; i < n; ++i)
    if (dev[i]) h->api.mem_free(dev[i]);
  return r;
}

enum { SMALL = 32 };

static tsr_status hip_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  tsr_hip_runtime* h = tsr_hip_runtime_get();
  const tsr_gpu_kernel* hk = (const tsr_gpu_kernel*)k->backend_state;
  int device = args->device_ordinal, saved;
  tsr_gpu_slot* slot;
  tsr_status s = tsr_gpu_slot_for(k, &hip_gpu, h->generation, device, &slot, msg, msg_size);
  unsigned block[3], grid[3];
  if (s != TSR_OK ||
      (s = tsr_gpu_launch_dims(k, "hip", slot->block, slot->grid, hk->scalar_names, args, block, grid, msg,
                               msg_size)) != TSR_OK)
    return s;
  /* One pointer per kernel argument, to the caller's own values: each is 8
   * bytes at offset 8*i of the kernarg segment (the compile step's ABI check). */
  size_t n = args->buffer_count, total = n + args->scalar_count;
  void* params_small[SMALL];
  void* dev_small[SMALL] = {0};
  void** params = total <= SMALL ? params_small : (void**)malloc(total * sizeof *params);
  void** dev = n <= SMALL ? dev_small : (void**)calloc(n, sizeof *dev);
  if (params && dev && (s = tsr_hip_enter(h, device, &saved, TSR_ERROR_LAUNCH_FAILED, msg, msg_size)) == TSR_OK) {
    for (size_t i = 0; i < n; ++i) params[i] = args->device ? (void*)&args->device[i] : (void*)&dev[i];
    for (size_t j = 0; j < args->scalar_count; ++j) params[n + j] = (void*)&args->scalars[j];
    const char* what = "hipModuleLaunchKernel";
    tsr_hip_error r = args->device ? h->api.launch((tsr_hip_function)slot->function, grid[0], grid[1], grid[2], block[0], block[1],
                                                block[2], slot->shared_bytes, (tsr_hip_stream)args->stream, params, NULL)
                                : run_copying(k, h, slot, args, dev, params, grid, block, &what);
    tsr_hip_restore(h, saved);
    if (r != 0) s = tsr_hip_fail(h, r, TSR_ERROR_LAUNCH_FAILED, what, device, msg, msg_size);
  } else if (!params || !dev) {
    s = TSR_ERROR_OUT_OF_MEMORY;
  }
  if (params != params_small) free(params);
  if (dev != dev_small) free(dev);
  return s;
}

const tsr_backend tsr_backend_hip = {
    "hip", "tsr_kernel_launch_device", 1, hip_select, hip_load, hip_launch, hip_unload,
};
