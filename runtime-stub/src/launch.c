/* Loading a kernel's selected variant and launching it. Every launch is
 * validated against the ABI recorded in the archive before any backend code
 * runs (tesserart.h documents the order of the checks). */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_internal.h"

struct tsr_kernel {
  tsr_archive* archive;
  size_t index;               /* kernel index in the archive */
  tsr_kernel_info info;
  tsr_selection selection;
  tsr_loaded loaded;
  char message[256];
};

tsr_status tsr_kernel_load(tsr_archive* a, const char* name, const tsr_select_options* options,
                           tsr_kernel** out_kernel) {
  if (!a || !name || !out_kernel) return TSR_ERROR_NULL_ARGUMENT;
  *out_kernel = NULL;
  a->message[0] = 0;
  size_t index;
  tsr_status s = tsr_archive_find_kernel(a, name, &index);
  if (s != TSR_OK) {
    tsr_set_message(a->message, sizeof a->message, "no kernel named '%s' in the archive", name);
    return s;
  }
  /* A kernel whose records fail their first-use check: its reason, not a status string. */
  if ((s = tsr_kernel_check(a, index, a->message, sizeof a->message)) != TSR_OK) return s;
  tsr_selection sel;
  if ((s = tsr_kernel_select(a, index, options, &sel)) != TSR_OK) {
    tsr_set_message(a->message, sizeof a->message, "kernel '%s': %s", name, tsr_status_string(s));
    return s;
  }
  const void* blob;
  size_t size;
  if ((s = tsr_variant_blob(a, index, sel.variant, &blob, &size)) != TSR_OK) return s;
  tsr_variant_info vi;
  tsr_kernel_info ki;
  /* The kernel passed its check above: these cannot fail, but are checked anyway. */
  if ((s = tsr_archive_kernel_at(a, index, &ki)) != TSR_OK ||
      (s = tsr_kernel_variant_at(a, index, sel.variant, &vi)) != TSR_OK)
    return s;
  struct tsr_kernel* k = (struct tsr_kernel*)calloc(1, sizeof *k);
  if (!k) return TSR_ERROR_OUT_OF_MEMORY;
  k->archive = a;
  k->index = index;
  k->selection = sel;
  k->info = ki;
  k->loaded.fd = -1;
  if (strcmp(sel.target_kind, "x86") == 0)
    s = tsr_x86_load(blob, size, vi.entry, &k->loaded, a->message, sizeof a->message);
  else if (strcmp(sel.target_kind, "cuda") == 0)
    s = tsr_cuda_load(blob, size, vi.artifact_kind == TSR_ARTIFACT_PTX, vi.entry, &k->loaded,
                      a->message, sizeof a->message);
  else
    s = TSR_ERROR_UNSUPPORTED;
  if (s != TSR_OK) {
    free(k);
    return s;
  }
  *out_kernel = k;
  return TSR_OK;
}

void tsr_kernel_unload(tsr_kernel* k) {
  if (!k) return;
  if (k->loaded.backend == TSR_BACKEND_X86) tsr_x86_unload(&k->loaded);
  else if (k->loaded.backend == TSR_BACKEND_CUDA) tsr_cuda_unload(&k->loaded);
  free(k);
}

tsr_status tsr_kernel_selection(const tsr_kernel* k, tsr_selection* out) {
  if (!k || !out) return TSR_ERROR_NULL_ARGUMENT;
  *out = k->selection;
  return TSR_OK;
}

const char* tsr_kernel_last_message(const tsr_kernel* k) { return k ? k->message : ""; }

#define REJECT(code, ...) do { tsr_set_message(k->message, sizeof k->message, __VA_ARGS__); return (code); } while (0)

/* Bytes a buffer binding needs for these scalars; 0 on overflow. */
static int required_bytes(const tsr_kernel* k, size_t binding, tsr_dtype dtype,
                          const int64_t* scalars, uint64_t* out) {
  tsr_binding_info bi;
  if (tsr_kernel_binding_at(k->archive, k->index, binding, &bi) != TSR_OK) return 0;
  uint64_t n = tsr_dtype_size(dtype);
  for (size_t d = 0; d < bi.dim_count; ++d) {
    tsr_dim_info di;
    if (tsr_kernel_dim_at(k->archive, k->index, binding, d, &di) != TSR_OK) return 0;
    uint64_t extent = (uint64_t)(di.is_scalar ? scalars[di.scalar_index] : di.value);
    if (!tsr_mul_u64(n, extent, &n)) return 0;
  }
  *out = n;
  return 1;
}

/* The checks that need nothing but the caller's counts: they come before
 * anything is allocated or read for the buffers, so a count of 2^40 is
 * ARG_COUNT, not OUT_OF_MEMORY. */
static tsr_status check_counts(tsr_kernel* k, const tsr_buffer_arg* buffers, size_t buffer_count,
                               const int64_t* scalars, size_t scalar_count) {
  const char* name = k->info.name;
  if ((!buffers && buffer_count) || (!scalars && scalar_count))
    REJECT(TSR_ERROR_NULL_ARGUMENT, "%s: NULL argument array", name);
  if (buffer_count != k->info.buffer_count || scalar_count != k->info.scalar_count)
    REJECT(TSR_ERROR_ARG_COUNT, "%s: expected %zu buffers and %zu scalars, got %zu and %zu", name,
           k->info.buffer_count, k->info.scalar_count, buffer_count, scalar_count);
  return TSR_OK;
}

/* The rest, in the order tesserart.h documents; counts already match the
 * ABI, so bi and need hold buffer_count entries. */
static tsr_status validate(tsr_kernel* k, const tsr_buffer_arg* buffers, size_t buffer_count,
                           const int64_t* scalars, size_t scalar_count, tsr_binding_info* bi,
                           uint64_t* need) {
  const char* name = k->info.name;
  for (size_t i = 0; i < buffer_count; ++i)
    if (tsr_kernel_binding_at(k->archive, k->index, i, &bi[i]) != TSR_OK)
      REJECT(TSR_ERROR_CORRUPT, "%s: binding %zu cannot be read", name, i);
  for (size_t i = 0; i < buffer_count; ++i)
    if (!buffers[i].data) REJECT(TSR_ERROR_NULL_ARGUMENT, "%s: buffer '%s' is NULL", name, bi[i].name);
  for (size_t i = 0; i < buffer_count; ++i)
    if (buffers[i].role != bi[i].role)
      REJECT(TSR_ERROR_ROLE_MISMATCH, "%s: buffer '%s' is an %s binding", name, bi[i].name,
             bi[i].role == TSR_ROLE_IN ? "input" : "output");
  for (size_t i = 0; i < buffer_count; ++i)
    if (buffers[i].dtype != bi[i].dtype)
      REJECT(TSR_ERROR_DTYPE_MISMATCH, "%s: buffer '%s' has dtype %s, the ABI says %s", name,
             bi[i].name, tsr_dtype_name(buffers[i].dtype), tsr_dtype_name(bi[i].dtype));
  for (size_t j = 0; j < scalar_count; ++j)
    if (scalars[j] < 0) REJECT(TSR_ERROR_INVALID_SCALAR, "%s: scalar %zu is negative", name, j);
  for (size_t i = 0; i < buffer_count; ++i) {
    if (!required_bytes(k, i, bi[i].dtype, scalars, &need[i]))
      REJECT(TSR_ERROR_INVALID_SCALAR, "%s: size of buffer '%s' overflows", name, bi[i].name);
    if ((uint64_t)buffers[i].bytes < need[i])
      REJECT(TSR_ERROR_BUFFER_TOO_SMALL, "%s: buffer '%s' has %zu bytes, needs %llu", name,
             bi[i].name, buffers[i].bytes, (unsigned long long)need[i]);
  }
  for (size_t i = 0; i < buffer_count; ++i)
    if ((uintptr_t)buffers[i].data % tsr_dtype_size(bi[i].dtype) != 0)
      REJECT(TSR_ERROR_MISALIGNED, "%s: buffer '%s' is not aligned to %zu bytes", name, bi[i].name,
             tsr_dtype_size(bi[i].dtype));
  return TSR_OK;
}

tsr_status tsr_kernel_launch(tsr_kernel* k, const tsr_buffer_arg* buffers, size_t buffer_count,
                             const int64_t* scalars, size_t scalar_count, tsr_selection* out_selection) {
  if (!k) return TSR_ERROR_NULL_ARGUMENT;
  k->message[0] = 0;
  tsr_status s = check_counts(k, buffers, buffer_count, scalars, scalar_count);
  if (s != TSR_OK) return s;
  /* buffer_count is now the ABI's own count. */
  enum { SMALL = 16 };
  uint64_t need_small[SMALL];
  tsr_binding_info bi_small[SMALL];
  uint64_t* need = need_small;
  tsr_binding_info* bi = bi_small;
  if (buffer_count > SMALL) {
    need = (uint64_t*)calloc(buffer_count, sizeof *need);
    bi = (tsr_binding_info*)calloc(buffer_count, sizeof *bi);
    if (!need || !bi) {
      free(need);
      free(bi);
      return TSR_ERROR_OUT_OF_MEMORY;
    }
  }
  s = validate(k, buffers, buffer_count, scalars, scalar_count, bi, need);
  if (s == TSR_OK) {
    tsr_launch_args args = {buffers, buffer_count, need, scalars, scalar_count};
    if (k->loaded.backend == TSR_BACKEND_X86)
      s = tsr_x86_launch(&k->loaded, &args);
    else if (k->loaded.backend == TSR_BACKEND_CUDA)
      s = tsr_cuda_launch(&k->loaded, &args, k->archive, k->index, k->selection.variant, k->message,
                          sizeof k->message);
    else
      s = TSR_ERROR_UNSUPPORTED;
  }
  if (need != need_small) {
    free(need);
    free(bi);
  }
  if (s == TSR_OK && out_selection) *out_selection = k->selection;
  return s;
}
