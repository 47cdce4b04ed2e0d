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

/* Binding i of the kernel; the kernel passed its check at load, so this
 * cannot fail (it is checked anyway). */
static tsr_status binding(tsr_kernel* k, size_t i, tsr_binding_info* bi) {
  if (tsr_kernel_binding_at(k->archive, k->index, i, bi) == TSR_OK) return TSR_OK;
  REJECT(TSR_ERROR_CORRUPT, "%s: binding %zu cannot be read", k->info.name, i);
}

#define BINDING(i) do { if (binding(k, (i), &bi) != TSR_OK) return TSR_ERROR_CORRUPT; } while (0)

/* Every check, in the order tesserart.h documents, before anything is
 * allocated: a count of 2^40 is ARG_COUNT, not OUT_OF_MEMORY. */
static tsr_status validate(tsr_kernel* k, const tsr_buffer_arg* buffers, size_t buffer_count,
                           const int64_t* scalars, size_t scalar_count) {
  const char* name = k->info.name;
  tsr_binding_info bi;
  uint64_t need;
  if ((!buffers && buffer_count) || (!scalars && scalar_count))
    REJECT(TSR_ERROR_NULL_ARGUMENT, "%s: NULL argument array", name);
  if (buffer_count != k->info.buffer_count || scalar_count != k->info.scalar_count)
    REJECT(TSR_ERROR_ARG_COUNT, "%s: expected %zu buffers and %zu scalars, got %zu and %zu", name,
           k->info.buffer_count, k->info.scalar_count, buffer_count, scalar_count);
  for (size_t i = 0; i < buffer_count; ++i) {
    BINDING(i);
    if (!buffers[i].data) REJECT(TSR_ERROR_NULL_ARGUMENT, "%s: buffer '%s' is NULL", name, bi.name);
  }
  for (size_t i = 0; i < buffer_count; ++i) {
    BINDING(i);
    if (buffers[i].role != bi.role)
      REJECT(TSR_ERROR_ROLE_MISMATCH, "%s: buffer '%s' is an %s binding", name, bi.name,
             bi.role == TSR_ROLE_IN ? "input" : "output");
  }
  for (size_t i = 0; i < buffer_count; ++i) {
    BINDING(i);
    if (buffers[i].dtype != bi.dtype)
      REJECT(TSR_ERROR_DTYPE_MISMATCH, "%s: buffer '%s' has dtype %s, the ABI says %s", name,
             bi.name, tsr_dtype_name(buffers[i].dtype), tsr_dtype_name(bi.dtype));
  }
  for (size_t j = 0; j < scalar_count; ++j)
    if (scalars[j] < 0) REJECT(TSR_ERROR_INVALID_SCALAR, "%s: scalar %zu is negative", name, j);
  for (size_t i = 0; i < buffer_count; ++i) {
    BINDING(i);
    if (!required_bytes(k, i, bi.dtype, scalars, &need))
      REJECT(TSR_ERROR_INVALID_SCALAR, "%s: size of buffer '%s' overflows", name, bi.name);
    if ((uint64_t)buffers[i].bytes < need)
      REJECT(TSR_ERROR_BUFFER_TOO_SMALL, "%s: buffer '%s' has %zu bytes, needs %llu", name,
             bi.name, buffers[i].bytes, (unsigned long long)need);
  }
  for (size_t i = 0; i < buffer_count; ++i) {
    BINDING(i);
    if ((uintptr_t)buffers[i].data % tsr_dtype_size(bi.dtype) != 0)
      REJECT(TSR_ERROR_MISALIGNED, "%s: buffer '%s' is not aligned to %zu bytes", name, bi.name,
             tsr_dtype_size(bi.dtype));
  }
  return TSR_OK;
}

tsr_status tsr_kernel_launch(tsr_kernel* k, const tsr_buffer_arg* buffers, size_t buffer_count,
                             const int64_t* scalars, size_t scalar_count, tsr_selection* out_selection) {
  if (!k) return TSR_ERROR_NULL_ARGUMENT;
  k->message[0] = 0;
  tsr_status s = validate(k, buffers, buffer_count, scalars, scalar_count);
  if (s != TSR_OK) return s;
  tsr_launch_args args = {buffers, buffer_count, NULL, scalars, scalar_count};
  if (k->loaded.backend == TSR_BACKEND_X86) {
    s = tsr_x86_launch(&k->loaded, &args);
  } else if (k->loaded.backend == TSR_BACKEND_CUDA) {
    /* Valid: buffer_count is the ABI's own count and every size fits. */
    uint64_t need_small[16];
    uint64_t* need = buffer_count <= 16 ? need_small : (uint64_t*)calloc(buffer_count, sizeof *need);
    if (!need) return TSR_ERROR_OUT_OF_MEMORY;
    tsr_binding_info bi;
    for (size_t i = 0; i < buffer_count && s == TSR_OK; ++i)
      if (tsr_kernel_binding_at(k->archive, k->index, i, &bi) != TSR_OK ||
          !required_bytes(k, i, bi.dtype, scalars, &need[i]))
        s = TSR_ERROR_CORRUPT;   /* validate read the same records */
    args.required_bytes = need;
    if (s == TSR_OK)
      s = tsr_cuda_launch(&k->loaded, &args, k->archive, k->index, k->selection.variant, k->message,
                          sizeof k->message);
    if (need != need_small) free(need);
  } else {
    s = TSR_ERROR_UNSUPPORTED;
  }
  if (s == TSR_OK && out_selection) *out_selection = k->selection;
  return s;
}
