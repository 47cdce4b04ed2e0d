/* Loading and launching a GPU kernel, for both vendors (tsr_gpu.h;
 * docs/runtime.md, "GPU launch"): the launch metadata of a variant, a
 * module per device loaded on its first use there, exactly once, with the
 * variant selected for that device; tsr_kernel_launch_device passes the
 * caller's device addresses and stream to the vendor's launch unchanged (no
 * copy, no synchronization); tsr_kernel_launch is the copying convenience:
 * device memory, copies in, launch, synchronize, copies out. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_gpu.h"

tsr_status tsr_gpu_launch_metadata(const tsr_archive* a, size_t kernel, size_t variant, const char* kind,
                                   const char** out_block, const char** out_grid, unsigned* out_shared,
                                   char* msg, size_t msg_size) {
  char key[32];
  const char* shared_text = "0";
  int64_t shared = 0;
  snprintf(key, sizeof key, "%s.shared_bytes", kind);
  tsr_status found = tsr_variant_metadata_find(a, kernel, variant, key, &shared_text);
  if ((found != TSR_OK && found != TSR_ERROR_NOT_FOUND) ||
      !tsr_cuda_parse_int(shared_text, strlen(shared_text), &shared) || shared > 0x7fffffff) {
    tsr_set_message(msg, msg_size, "%s variant has an invalid %s '%.32s'", kind, key, shared_text);
    return TSR_ERROR_CORRUPT;
  }
  snprintf(key, sizeof key, "%s.block", kind);
  tsr_status s = tsr_variant_metadata_find(a, kernel, variant, key, out_block);
  snprintf(key, sizeof key, "%s.grid", kind);
  if (s != TSR_OK || tsr_variant_metadata_find(a, kernel, variant, key, out_grid) != TSR_OK) {
    tsr_set_message(msg, msg_size, "%s variant has no valid %s.block / %s.grid metadata", kind, kind, kind);
    return TSR_ERROR_CORRUPT;
  }
  *out_shared = (unsigned)shared;
  return TSR_OK;
}

tsr_status tsr_gpu_launch_dims(const struct tsr_kernel* k, const char* kind, const char* block_text,
                               const char* grid_text, const char* const* names, const tsr_launch_args* args,
                               unsigned block[3], unsigned grid[3], char* msg, size_t msg_size) {
  const char* why = tsr_cuda_eval_triple(block_text, "block", names, args->scalars, args->scalar_count, block);
  const char* text = why ? block_text : grid_text;
  if (!why) why = tsr_cuda_eval_triple(grid_text, "grid", names, args->scalars, args->scalar_count, grid);
  if (why == TSR_CUDA_GRID_TOO_LARGE) {
    tsr_set_message(msg, msg_size, "%s: %s.grid '%.48s' %s for these sizes", k->info.name, kind, text, why);
    return TSR_ERROR_INVALID_SCALAR;
  }
  if (why) {
    tsr_set_message(msg, msg_size, "%s variant has no valid %s.block / %s.grid metadata ('%.48s' %s)", kind, kind,
                    kind, text, why);
    return TSR_ERROR_CORRUPT;
  }
  return TSR_OK;
}

const char** tsr_gpu_scalar_names(const struct tsr_kernel* k) {
  size_t ns = k->info.scalar_count;
  const char** names = (const char**)calloc(ns ? ns : 1, sizeof *names);
  for (size_t i = 0; names && i < ns; ++i) {
    tsr_binding_info bi;
    if (tsr_kernel_binding_at(k->archive, k->index, k->info.buffer_count + i, &bi) != TSR_OK) {
      free(names);
      return NULL;
    }
    names[i] = bi.name;
  }
  return names;
}

tsr_status tsr_gpu_kernel_new(struct tsr_kernel* k, unsigned generation, int device_count) {
  tsr_gpu_kernel* gk = (tsr_gpu_kernel*)calloc(1, sizeof *gk + (size_t)device_count * sizeof(tsr_gpu_slot));
  const char** names = tsr_gpu_scalar_names(k);
  if (!gk || !names) {
    free(gk);
    free(names);
    return TSR_ERROR_OUT_OF_MEMORY;
  }
  pthread_mutex_init(&gk->lock, NULL);
  gk->generation = generation;
  gk->slot_count = device_count;
  gk->scalar_names = names;
  k->backend_state = gk;
  return TSR_OK;
}

void tsr_gpu_kernel_free(struct tsr_kernel* k) {
  tsr_gpu_kernel* gk = (tsr_gpu_kernel*)k->backend_state;
  pthread_mutex_destroy(&gk->lock);
  free(gk->scalar_names);
  free(gk);
  k->backend_state = NULL;
}

/* Loads `variant` (its blob at blob/size) on `device` into `slot`. */
static tsr_status load_slot(struct tsr_kernel* k, const tsr_gpu_vendor* v, int device, size_t variant,
                            const void* blob, size_t size, const tsr_variant_info* vi, tsr_gpu_slot* slot, char* msg,
                            size_t msg_size) {
  tsr_gpu_driver* d = v->driver();
  unsigned shared;
  tsr_status s = tsr_gpu_launch_metadata(k->archive, k->index, variant, v->backend.kind, &slot->block, &slot->grid,
                                         &shared, msg, msg_size);
  if (s != TSR_OK) return s;
  /* The loaders read a binary's size from its ELF headers; PTX is text and wants its NUL. */
  char* text = NULL;
  if (vi->artifact_kind == TSR_ARTIFACT_PTX) {
    if (!(text = (char*)malloc(size + 1))) return TSR_ERROR_OUT_OF_MEMORY;
    memcpy(text, blob, size);
    text[size] = 0;
  }
  int saved;
  s = v->enter(device, &saved, TSR_ERROR_LOAD_FAILED, msg, msg_size);
  if (s != TSR_OK) {
    free(text);
    return s;
  }
  void* module = NULL;
  void* function = NULL;
  char what[96];
  snprintf(what, sizeof what, "%s", v->load_module);
  int r = d->calls.module_load(&module, text ? text : blob);
  if (r == 0) {
    snprintf(what, sizeof what, v->get_function, vi->entry);
    r = d->calls.module_function(&function, module, vi->entry);
  }
  if (r == 0 && shared > TSR_GPU_DEFAULT_SHARED_LIMIT && v->allow_shared)
    r = v->allow_shared(function, shared, what, sizeof what);
  if (r != 0 && module) d->calls.module_unload(module);
  v->leave(saved);
  free(text);
  if (r != 0) return tsr_gpu_fail(v, r, TSR_ERROR_LOAD_FAILED, what, device, msg, msg_size);
  slot->module = module;
  slot->function = function;
  slot->shared_bytes = shared;
  __atomic_store_n(&slot->ready, 1, __ATOMIC_RELEASE);
  return TSR_OK;
}

/* First use on a device other than the load's: select for that device. */
static tsr_status load_on_device(struct tsr_kernel* k, const tsr_gpu_vendor* v, int device, tsr_gpu_slot* slot,
                                 char* msg, size_t msg_size) {
  tsr_select_options o = k->options;
  o.device = device;
  size_t variant;
  const char* route;
  const void* blob;
  size_t size;
  tsr_variant_info vi;
  char arch[64];
  tsr_status s = tsr_backend_select(&v->backend, k->archive, k->index, &o, &variant, &route);
  if (s == TSR_OK && (s = tsr_variant_blob(k->archive, k->index, variant, &blob, &size)) == TSR_OK &&
      (s = tsr_kernel_variant_at(k->archive, k->index, variant, &vi)) == TSR_OK)
    return load_slot(k, v, device, variant, blob, size, &vi, slot, msg, msg_size);
  v->describe(device, arch, sizeof arch);
  tsr_set_message(msg, msg_size, "%s on %s device %d (%s): %s", k->info.name, v->name, device, arch,
                  tsr_status_string(s));
  return s;
}

tsr_status tsr_gpu_slot_for(struct tsr_kernel* k, const tsr_gpu_vendor* v, unsigned generation, int device,
                            tsr_gpu_slot** out, char* msg, size_t msg_size) {
  tsr_gpu_kernel* gk = (tsr_gpu_kernel*)k->backend_state;
  if (device >= gk->slot_count || gk->generation != generation) {
    tsr_set_message(msg, msg_size, "%s: no %s device %d (%d present)", k->info.name, v->name, device,
                    gk->slot_count);
    return TSR_ERROR_NO_DEVICE;
  }
  tsr_gpu_slot* slot = &gk->slots[device];
  if (!__atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&gk->lock);
    tsr_status s = slot->ready ? TSR_OK : load_on_device(k, v, device, slot, msg, msg_size);
    pthread_mutex_unlock(&gk->lock);
    if (s != TSR_OK) return s;
  }
  *out = slot;
  return TSR_OK;
}

void tsr_gpu_unload(struct tsr_kernel* k) {
  const tsr_gpu_vendor* v = (const tsr_gpu_vendor*)k->backend;
  tsr_gpu_kernel* gk = (tsr_gpu_kernel*)k->backend_state;
  if (!gk) return;
  tsr_gpu_driver* d = v->driver();
  for (int i = 0; i < gk->slot_count && gk->generation == d->generation; ++i) {
    int saved;
    if (gk->slots[i].ready && v->enter(i, &saved, TSR_ERROR_LOAD_FAILED, NULL, 0) == TSR_OK) {
      d->calls.module_unload(gk->slots[i].module);
      v->leave(saved);
    }
  }
  tsr_gpu_kernel_free(k);
}

tsr_status tsr_gpu_load(struct tsr_kernel* k, const void* blob, size_t size, const tsr_variant_info* vi, char* msg,
                        size_t msg_size) {
  const tsr_gpu_vendor* v = (const tsr_gpu_vendor*)k->backend;
  tsr_gpu_driver* d = v->driver();
  if (d->status != TSR_OK || k->options.device >= d->device_count) return TSR_ERROR_NO_DEVICE;
  tsr_status s = tsr_gpu_kernel_new(k, d->generation, d->device_count);
  if (s != TSR_OK) return s;
  tsr_gpu_slot* slot = &((tsr_gpu_kernel*)k->backend_state)->slots[k->options.device];
  s = load_slot(k, v, k->options.device, k->selection.variant, blob, size, vi, slot, msg, msg_size);
  if (s != TSR_OK) tsr_gpu_unload(k);
  return s;
}

/* tsr_kernel_launch: device copies of the buffers (a zero-byte one is
 * address 0), inputs copied in, launch on the default stream, synchronize,
 * outputs copied back, everything freed. */
static int run_copying(const struct tsr_kernel* k, const tsr_gpu_vendor* v, const tsr_gpu_driver* d,
                       const tsr_gpu_slot* slot, const tsr_launch_args* args, tsr_gpu_ptr* dev, void** params,
                       const unsigned* g, const unsigned* b, const char** what) {
  int r = 0;
  size_t n = args->buffer_count;
  for (size_t i = 0; r == 0 && i < n; ++i) {
    size_t bytes = (size_t)args->required_bytes[i];
    if (bytes && (*what = v->alloc, r = d->calls.mem_alloc(&dev[i], bytes)) == 0 && k->buffers[i].role == TSR_ROLE_IN)
      *what = v->copy_in, r = d->calls.memcpy_htod(dev[i], args->host[i], bytes);
  }
  if (r == 0)
    *what = v->launch, r = d->calls.launch(slot->function, g[0], g[1], g[2], b[0], b[1], b[2], slot->shared_bytes, NULL,
                                           params, NULL);
  if (r == 0) *what = v->synchronize, r = d->calls.synchronize();
  for (size_t i = 0; r == 0 && i < n; ++i)
    if (k->buffers[i].role == TSR_ROLE_OUT && args->required_bytes[i])
      *what = v->copy_out, r = d->calls.memcpy_dtoh(args->host[i], dev[i], (size_t)args->required_bytes[i]);
  for (size_t i = 0; i < n; ++i)
    if (dev[i]) d->calls.mem_free(dev[i]);
  return r;
}

enum { SMALL = 32 };

tsr_status tsr_gpu_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg, size_t msg_size) {
  const tsr_gpu_vendor* v = (const tsr_gpu_vendor*)k->backend;
  tsr_gpu_driver* d = v->driver();
  const tsr_gpu_kernel* gk = (const tsr_gpu_kernel*)k->backend_state;
  int device = args->device_ordinal, saved;
  tsr_gpu_slot* slot;
  tsr_status s = tsr_gpu_slot_for(k, v, d->generation, device, &slot, msg, msg_size);
  unsigned block[3], grid[3];
  if (s != TSR_OK || (s = tsr_gpu_launch_dims(k, v->backend.kind, slot->block, slot->grid, gk->scalar_names, args,
                                              block, grid, msg, msg_size)) != TSR_OK)
    return s;
  /* One pointer per kernel parameter, to the caller's own values: device
   * addresses and scalars reach the kernel exactly as given (HIP: each 8
   * bytes at offset 8*i of the kernarg segment, the compile step's ABI check). */
  size_t n = args->buffer_count, total = n + args->scalar_count;
  void* params_small[SMALL];
  tsr_gpu_ptr dev_small[SMALL] = {0};
  void** params = total <= SMALL ? params_small : (void**)malloc(total * sizeof *params);
  tsr_gpu_ptr* dev = n <= SMALL ? dev_small : (tsr_gpu_ptr*)calloc(n, sizeof *dev);
  if (params && dev && (s = v->enter(device, &saved, TSR_ERROR_LAUNCH_FAILED, msg, msg_size)) == TSR_OK) {
    for (size_t i = 0; i < n; ++i) params[i] = args->device ? (void*)&args->device[i] : (void*)&dev[i];
    for (size_t j = 0; j < args->scalar_count; ++j) params[n + j] = (void*)&args->scalars[j];
    const char* what = v->launch;
    int r = args->device ? d->calls.launch(slot->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                           slot->shared_bytes, args->stream, params, NULL)
                         : run_copying(k, v, d, slot, args, dev, params, grid, block, &what);
    v->leave(saved);
    if (r != 0) s = tsr_gpu_fail(v, r, TSR_ERROR_LAUNCH_FAILED, what, device, msg, msg_size);
  } else if (!params || !dev) {
    s = TSR_ERROR_OUT_OF_MEMORY;
  }
  if (params != params_small) free(params);
  if (dev != dev_small) free(dev);
  return s;
}
