/* Loading a kernel's selected variant and launching it, for every backend.
 * Every launch is validated against the ABI recorded in the archive (cached
 * in the tsr_kernel at load) before any backend code runs; tesserart.h
 * documents the order of the checks. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_internal.h"

#define KMSG(k) TSR_MSG(TSR_MSG_KERNEL, k)
#define AMSG(a) TSR_MSG(TSR_MSG_ARCHIVE, a)

/* The kernel's buffer bindings and their extents, read once. */
static tsr_status cache_abi(struct tsr_kernel* k) {
  size_t dim_total = 0;
  tsr_binding_info bi;
  for (size_t i = 0; i < k->info.buffer_count; ++i) {
    if (tsr_kernel_binding_at(k->archive, k->index, i, &bi) != TSR_OK) return TSR_ERROR_CORRUPT;
    dim_total += bi.dim_count;
  }
  size_t nb = k->info.buffer_count;
  k->buffers = (tsr_buffer_abi*)calloc(nb ? nb : 1, sizeof *k->buffers);
  k->dims = (tsr_dim_abi*)calloc(dim_total ? dim_total : 1, sizeof *k->dims);
  if (!k->buffers || !k->dims) return TSR_ERROR_OUT_OF_MEMORY;
  uint32_t next = 0;
  for (size_t i = 0; i < nb; ++i) {
    if (tsr_kernel_binding_at(k->archive, k->index, i, &bi) != TSR_OK) return TSR_ERROR_CORRUPT;
    k->buffers[i] = (tsr_buffer_abi){bi.name, bi.dtype, bi.role, next, (uint32_t)bi.dim_count};
    for (size_t d = 0; d < bi.dim_count; ++d, ++next) {
      tsr_dim_info di;
      if (tsr_kernel_dim_at(k->archive, k->index, i, d, &di) != TSR_OK) return TSR_ERROR_CORRUPT;
      k->dims[next].value = di.value;
      k->dims[next].scalar = di.is_scalar ? (int32_t)di.scalar_index : -1;
    }
  }
  return TSR_OK;
}

static void free_kernel(struct tsr_kernel* k) {
  free(k->entry_step);
  free(k->buffers);
  free(k->dims);
  free(k);
}

tsr_status tsr_kernel_load(tsr_archive* a, const char* name, const tsr_select_options* options,
                           tsr_kernel** out_kernel) {
  if (!a || !name || !out_kernel) return TSR_ERROR_NULL_ARGUMENT;
  *out_kernel = NULL;
  tsr_message_slot(TSR_MSG_ARCHIVE, a->message_id)[0] = 0;
  if (options && (options->delegates < -1 || options->delegates > 1)) {
    tsr_set_message(AMSG(a), "tsr_select_options.delegates is %d (allowed: -1, 0, 1)", options->delegates);
    return TSR_ERROR_INVALID_ARGUMENT;
  }
  size_t index;
  tsr_status s = tsr_archive_find_kernel(a, name, &index);
  if (s != TSR_OK) {
    tsr_set_message(AMSG(a), "no kernel named '%s' in the archive", name);
    return s;
  }
  /* A kernel whose records fail their first-use check: its reason, not a status string. */
  if ((s = tsr_kernel_check(a, index, AMSG(a))) != TSR_OK) return s;
  tsr_selection sel;
  if ((s = tsr_kernel_select(a, index, options, &sel)) != TSR_OK) {
    /* NOT_QUALIFIED: select named the variant the policy refused. */
    if (s != TSR_ERROR_NOT_QUALIFIED) tsr_set_message(AMSG(a), "kernel '%s': %s", name, tsr_status_string(s));
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
  const tsr_backend* backend = tsr_backend_for_kind(sel.target_kind);
  if (!backend) return TSR_ERROR_UNSUPPORTED;   /* select only returns known kinds */
  struct tsr_kernel* k = (struct tsr_kernel*)calloc(1, sizeof *k);
  if (!k) return TSR_ERROR_OUT_OF_MEMORY;
  k->archive = a;
  k->message_id = tsr_message_new_owner();
  k->index = index;
  k->selection = sel;
  k->info = ki;
  k->backend = backend;
  /* Kept for GPU backends that select again per device: strings from the archive. */
  k->options.target_kind = sel.target_kind;
  k->options.arch = options && options->arch ? sel.arch : NULL;
  k->options.x86_level = options ? options->x86_level : 0;
  k->options.device = options ? options->device : 0;
  k->options.require_qualified = options ? options->require_qualified : 0;
  k->options.delegates = options ? options->delegates : 0;
  size_t entry_len = strlen(vi.entry);
  if (!(k->entry_step = (char*)malloc(entry_len + 7))) s = TSR_ERROR_OUT_OF_MEMORY;
  else snprintf(k->entry_step, entry_len + 7, "entry:%s", vi.entry);
  if (s == TSR_OK && (s = cache_abi(k)) == TSR_OK) s = backend->load(k, blob, size, &vi, AMSG(a));
  if (s != TSR_OK) {
    free_kernel(k);
    return s;
  }
  *out_kernel = k;
  return TSR_OK;
}

void tsr_kernel_unload(tsr_kernel* k) {
  if (!k) return;
  k->backend->unload(k);
  free_kernel(k);
}

tsr_status tsr_kernel_selection(const tsr_kernel* k, tsr_selection* out) {
  if (!k || !out) return TSR_ERROR_NULL_ARGUMENT;
  *out = k->selection;
  return TSR_OK;
}

const char* tsr_kernel_last_message(const tsr_kernel* k) {
  return k ? tsr_message_text(TSR_MSG_KERNEL, k->message_id) : "";
}

#define REJECT(code, ...) do { tsr_set_message(KMSG(k), __VA_ARGS__); return (code); } while (0)

/* One launch's arguments as the checks see them, host or device. */
typedef struct launch_view {
  const tsr_buffer_arg* host;
  const tsr_device_buffer* device;
} launch_view;

static uint64_t address_of(const launch_view* v, size_t i) {
  return v->host ? (uint64_t)(uintptr_t)v->host[i].data : v->device[i].ptr;
}
static size_t bytes_of(const launch_view* v, size_t i) { return v->host ? v->host[i].bytes : v->device[i].bytes; }
static tsr_dtype dtype_of(const launch_view* v, size_t i) { return v->host ? v->host[i].dtype : v->device[i].dtype; }
static tsr_role role_of(const launch_view* v, size_t i) { return v->host ? v->host[i].role : v->device[i].role; }

/* Every check, in the order tesserart.h documents, before anything runs; a
 * count of 2^40 is ARG_COUNT, not OUT_OF_MEMORY. Fills need[] (bytes per
 * buffer) and sets *empty when every output has zero elements. */
static tsr_status validate(tsr_kernel* k, const launch_view* v, int have_buffers, size_t buffer_count,
                           const int64_t* scalars, size_t scalar_count, uint64_t* need, int* empty) {
  const char* name = k->info.name;
  if ((!have_buffers && buffer_count) || (!scalars && scalar_count))
    REJECT(TSR_ERROR_NULL_ARGUMENT, "%s: NULL argument array", name);
  if (buffer_count != k->info.buffer_count || scalar_count != k->info.scalar_count)
    REJECT(TSR_ERROR_ARG_COUNT, "%s: expected %zu buffers and %zu scalars, got %zu and %zu", name,
           k->info.buffer_count, k->info.scalar_count, buffer_count, scalar_count);
  for (size_t i = 0; i < buffer_count; ++i)
    if (role_of(v, i) != k->buffers[i].role)
      REJECT(TSR_ERROR_ROLE_MISMATCH, "%s: buffer '%s' is an %s binding", name, k->buffers[i].name,
             k->buffers[i].role == TSR_ROLE_IN ? "input" : "output");
  for (size_t i = 0; i < buffer_count; ++i)
    if (dtype_of(v, i) != k->buffers[i].dtype)
      REJECT(TSR_ERROR_DTYPE_MISMATCH, "%s: buffer '%s' has dtype %s, the ABI says %s", name,
             k->buffers[i].name, tsr_dtype_name(dtype_of(v, i)), tsr_dtype_name(k->buffers[i].dtype));
  for (size_t j = 0; j < scalar_count; ++j)
    if (scalars[j] < 0) REJECT(TSR_ERROR_INVALID_SCALAR, "%s: scalar %zu is negative", name, j);
  *empty = 1;
  for (size_t i = 0; i < buffer_count; ++i) {
    const tsr_buffer_abi* b = &k->buffers[i];
    uint64_t n = tsr_dtype_size(b->dtype);
    for (uint32_t d = 0; d < b->dim_count; ++d) {
      const tsr_dim_abi* dim = &k->dims[b->dim_first + d];
      uint64_t extent = (uint64_t)(dim->scalar >= 0 ? scalars[dim->scalar] : dim->value);
      if (!tsr_mul_u64(n, extent, &n))
        REJECT(TSR_ERROR_INVALID_SCALAR, "%s: size of buffer '%s' overflows", name, b->name);
    }
    if ((uint64_t)bytes_of(v, i) < n)
      REJECT(TSR_ERROR_BUFFER_TOO_SMALL, "%s: buffer '%s' has %zu bytes, needs %llu", name, b->name,
             bytes_of(v, i), (unsigned long long)n);
    need[i] = n;
    if (b->role == TSR_ROLE_OUT && n) *empty = 0;
  }
  for (size_t i = 0; i < buffer_count; ++i)
    if (!address_of(v, i) && need[i])
      REJECT(TSR_ERROR_NULL_ARGUMENT, "%s: buffer '%s' is NULL", name, k->buffers[i].name);
  for (size_t i = 0; i < buffer_count; ++i)
    if (address_of(v, i) % tsr_dtype_size(k->buffers[i].dtype) != 0)
      REJECT(TSR_ERROR_MISALIGNED, "%s: buffer '%s' is not aligned to %zu bytes", name, k->buffers[i].name,
             tsr_dtype_size(k->buffers[i].dtype));
  return TSR_OK;
}

enum { SMALL = 16 };

/* Validates, skips an empty problem, and hands the rest to the backend. */
static tsr_status run(tsr_kernel* k, const launch_view* v, int have_buffers, size_t buffer_count,
                      const int64_t* scalars, size_t scalar_count, int device, void* stream) {
  tsr_message_slot(TSR_MSG_KERNEL, k->message_id)[0] = 0;
  uint64_t need_small[SMALL];
  void* host_small[SMALL];
  uint64_t dev_small[SMALL];
  /* buffer_count is only trusted once it matches the ABI (validate checks it first). */
  size_t n = buffer_count == k->info.buffer_count ? buffer_count : 0;
  uint64_t* need = n <= SMALL ? need_small : (uint64_t*)malloc(n * sizeof *need);
  if (!need) return TSR_ERROR_OUT_OF_MEMORY;
  int empty = 0;
  tsr_status s = validate(k, v, have_buffers, buffer_count, scalars, scalar_count, need, &empty);
  if (s == TSR_OK && !empty) {
    tsr_launch_args args = {n, scalar_count, NULL, NULL, need, scalars, device, stream};
    void** host = NULL;
    uint64_t* dev = NULL;
    if (v->host) {
      host = n <= SMALL ? host_small : (void**)malloc(n * sizeof *host);
      for (size_t i = 0; host && i < n; ++i) host[i] = v->host[i].data;
      args.host = host;
    } else {
      dev = n <= SMALL ? dev_small : (uint64_t*)malloc(n * sizeof *dev);
      for (size_t i = 0; dev && i < n; ++i) dev[i] = v->device[i].ptr;
      args.device = dev;
    }
    if (!host && !dev) s = TSR_ERROR_OUT_OF_MEMORY;
    else s = k->backend->launch(k, &args, KMSG(k));
    if (host != host_small) free(host);
    if (dev != dev_small) free(dev);
  }
  if (need != need_small) free(need);
  return s;
}

tsr_status tsr_kernel_launch(tsr_kernel* k, const tsr_buffer_arg* buffers, size_t buffer_count,
                             const int64_t* scalars, size_t scalar_count, tsr_selection* out_selection) {
  if (!k) return TSR_ERROR_NULL_ARGUMENT;
  static const tsr_buffer_arg none[1];
  launch_view v = {buffers ? buffers : none, NULL};
  tsr_status s = run(k, &v, buffers != NULL, buffer_count, scalars, scalar_count, k->options.device, NULL);
  if (s == TSR_OK && out_selection) *out_selection = k->selection;
  return s;
}

tsr_status tsr_kernel_launch_device(tsr_kernel* k, int device, void* stream,
                                    const tsr_device_buffer* buffers, size_t buffer_count,
                                    const int64_t* scalars, size_t scalar_count) {
  if (!k) return TSR_ERROR_NULL_ARGUMENT;
  if (!k->backend->takes_device_pointers) {
    tsr_set_message(KMSG(k), "%s: a %s kernel takes host pointers (tsr_kernel_launch)", k->info.name,
                    k->backend->kind);
    return TSR_ERROR_INVALID_ARGUMENT;
  }
  if (device < 0) {
    tsr_set_message(KMSG(k), "%s: device ordinal %d is negative", k->info.name, device);
    return TSR_ERROR_INVALID_ARGUMENT;
  }
  static const tsr_device_buffer none[1];
  launch_view v = {NULL, buffers ? buffers : none};
  return run(k, &v, buffers != NULL, buffer_count, scalars, scalar_count, device, stream);
}
