/* Launch metadata of GPU variants, shared by backend_cuda.c and
 * backend_hip.c (see tsr_gpu.h). */
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

/* First use on a device other than the load's: select for that device. */
static tsr_status load_on_device(struct tsr_kernel* k, const tsr_gpu_backend* gb, int device, tsr_gpu_slot* slot,
                                 char* msg, size_t msg_size) {
  tsr_select_options o = k->options;
  o.device = device;
  size_t v;
  const char* route;
  const void* blob;
  size_t size;
  tsr_variant_info vi;
  char arch[64];
  tsr_status s = tsr_backend_select(gb->backend, k->archive, k->index, &o, &v, &route);
  if (s == TSR_OK && (s = tsr_variant_blob(k->archive, k->index, v, &blob, &size)) == TSR_OK &&
      (s = tsr_kernel_variant_at(k->archive, k->index, v, &vi)) == TSR_OK)
    return gb->load_slot(k, device, v, blob, size, &vi, slot, msg, msg_size);
  gb->describe(device, arch, sizeof arch);
  tsr_set_message(msg, msg_size, "%s on %s device %d (%s): %s", k->info.name, gb->vendor, device, arch,
                  tsr_status_string(s));
  return s;
}

tsr_status tsr_gpu_slot_for(struct tsr_kernel* k, const tsr_gpu_backend* gb, unsigned generation, int device,
                            tsr_gpu_slot** out, char* msg, size_t msg_size) {
  tsr_gpu_kernel* gk = (tsr_gpu_kernel*)k->backend_state;
  if (device >= gk->slot_count || gk->generation != generation) {
    tsr_set_message(msg, msg_size, "%s: no %s device %d (%d present)", k->info.name, gb->vendor, device,
                    gk->slot_count);
    return TSR_ERROR_NO_DEVICE;
  }
  tsr_gpu_slot* slot = &gk->slots[device];
  if (!__atomic_load_n(&slot->ready, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&gk->lock);
    tsr_status s = slot->ready ? TSR_OK : load_on_device(k, gb, device, slot, msg, msg_size);
    pthread_mutex_unlock(&gk->lock);
    if (s != TSR_OK) return s;
  }
  *out = slot;
  return TSR_OK;
}
