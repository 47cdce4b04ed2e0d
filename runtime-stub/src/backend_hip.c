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
#include <stdlib.h>

#include "tsr_hip.h"

/* The kernel on one device: set up on its first use there. */
typedef struct hip_slot {
  int ready;                 /* __atomic: 1 once the fields below are set */
  tsr_hip_module module;
  tsr_hip_function function;
  const char* block;         /* archive strings */
  const char* grid;
  unsigned shared_bytes;
} hip_slot;

typedef struct hip_kernel {
  pthread_mutex_t lock;      /* serializes first loads; launches of a ready slot never take it */
  unsigned generation;       /* the runtime's at load */
  int slot_count;
  const char** scalar_names; /* ABI order, for the geometry */
  hip_slot slots[];          /* one per device ordinal */
} hip_kernel;

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

/* Loads `variant` (its blob at blob/size) on `device` into its slot. */
static tsr_status load_slot(struct tsr_kernel* k, tsr_hip_runtime* h, int device, size_t variant, const void* blob,
                            const tsr_variant_info* vi, char* msg, size_t msg_size) {
  hip_slot* slot = &((hip_kernel*)k->backend_state)->slots[device];
  tsr_status s = tsr_gpu_launch_metadata(k->archive, k->index, variant, "hip", &slot->block, &slot->grid,
                                         &slot->shared_bytes, msg, msg_size);
  int saved;
  if (s != TSR_OK || (s = tsr_hip_enter(h, device, &saved, TSR_ERROR_LOAD_FAILED, msg, msg_size)) != TSR_OK)
    return s;
  tsr_hip_module module = NULL;
  tsr_hip_function function = NULL;
  const char* what = "hipModuleLoadData";
  /* The blob is the code object ELF itself: hipModuleLoadData reads its size from its headers. */
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

/* First use on a device other than the load's: select for its target ID. */
static tsr_status load_on_device(struct tsr_kernel* k, tsr_hip_runtime* h, int device, char* msg, size_t msg_size) {
  tsr_select_options o = k->options;
  o.device = device;
  size_t v;
  const char* route;
  const void* blob;
  size_t size;
  tsr_variant_info vi;
  tsr_status s = tsr_backend_select(&tsr_backend_hip, k->archive, k->index, &o, &v, &route);
  if (s == TSR_OK && (s = tsr_variant_blob(k->archive, k->index, v, &blob, &size)) == TSR_OK &&
      (s = tsr_kernel_variant_at(k->archive, k->index, v, &vi)) == TSR_OK)
    return load_slot(k, h, device, v, blob, &vi, msg, msg_size);
  tsr_set_message(msg, msg_size, "%s on HIP device %d (%.48s): %s", k->info.name, device, h->devices[device].arch,
                  tsr_status_string(s));
  return s;
}

/* The device's slot, loaded on first use: once, even when threads race. */
static tsr_status slot_for(struct tsr_kernel* k, tsr_hip_runtime* h, int device, hip_slot** out, char* msg,
                           size_t msg_size) {
  hip_kernel* hk = (hip_kernel*)k->backend_state;
  if (device >= hk->slot_count || hk->generation != h->generation) {
    tsr_set_message(msg, msg_size, "%s: no HIP device %d (%d present)", k->info.name, device, hk->slot_count);
    return TSR_ERROR_NO_DEVICE;
  }
  hip_slot* slot = &hk->slots[device];
  if (!__atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&hk->lock);
    tsr_status s = slot->ready ? TSR_OK : load_on_device(k, h, device, msg, msg_size);
    pthread_mutex_unlock(&hk->lock);
    if (s != TSR_OK) return s;
  }
  *out = slot;
  return TSR_OK;
}

static void hip_unload(struct tsr_kernel* k) {
  hip_kernel* hk = (hip_kernel*)k->backend_state;
  if (!hk) return;
  tsr_hip_runtime* h = tsr_hip_runtime_get();
  for (int i = 0; i < hk->slot_count && hk->generation == h->generation; ++i) {
    int saved;
    if (hk->slots[i].ready && tsr_hip_enter(h, i, &saved, TSR_ERROR_LOAD_FAILED, NULL, 0) == TSR_OK) {
      h->api.module_unload(hk->slots[i].module);
      tsr_hip_restore(h, saved);
    }
  }
  pthread_mutex_destroy(&hk->lock);
  free(hk->scalar_names);
  free(hk);
  k->backend_state = NULL;
}

static tsr_status hip_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi, char* msg,
                           size_t msg_size) {
  tsr_hip_runtime* h = tsr_hip_runtime_get();
  (void)size;
  if (h->status != TSR_OK || k->options.device >= h->device_count) return TSR_ERROR_NO_DEVICE;
  hip_kernel* hk = (hip_kernel*)calloc(1, sizeof *hk + (size_t)h->device_count * sizeof(hip_slot));
  const char** names = tsr_gpu_scalar_names(k);
  if (!hk || !names) {
    free(hk);
    free(names);
    return TSR_ERROR_OUT_OF_MEMORY;
  }
  pthread_mutex_init(&hk->lock, NULL);
  hk->generation = h->generation;
  hk->slot_count = h->device_count;
  hk->scalar_names = names;
  k->backend_state = hk;
  tsr_status s = load_slot(k, h, k->options.device, k->selection.variant, blob, vi, msg, msg_size);
  if (s != TSR_OK) hip_unload(k);
  return s;
}

/* tsr_kernel_launch: device copies of the buffers (a zero-byte one is
 * address 0), inputs copied in, launch on the null stream, synchronize,
 * outputs copied back, everything freed. */
static tsr_hip_error run_copying(const struct tsr_kernel* k, const tsr_hip_runtime* h, const hip_slot* slot,
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
    *what = "hipModuleLaunchKernel", r = h->api.launch(slot->function, g[0], g[1], g[2], b[0], b[1], b[2],
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
  const hip_kernel* hk = (const hip_kernel*)k->backend_state;
  int device = args->device_ordinal, saved;
  hip_slot* slot;
  tsr_status s = slot_for(k, h, device, &slot, msg, msg_size);
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
    tsr_hip_error r = args->device ? h->api.launch(slot->function, grid[0], grid[1], grid[2], block[0], block[1],
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
