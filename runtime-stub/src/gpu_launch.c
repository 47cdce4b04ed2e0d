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
