/* Read-only accessors over a parsed archive. Open validated the kernel table
 * and record ranges; an accessor that reads a kernel's own records first
 * runs that kernel's check (tsr_kernel_check, cached), then the caller's
 * indices. */
#include "tsr_internal.h"

/* TSR_ERROR_INVALID_ARGUMENT for a kernel index out of range,
 * TSR_ERROR_CORRUPT for a kernel whose records fail their check. */
static tsr_status kernel_ready(const struct tsr_archive* a, size_t kernel, char* msg, size_t msg_size) {
  if (kernel >= a->kern.count) return TSR_ERROR_INVALID_ARGUMENT;
  return tsr_kernel_check(a, kernel, msg, msg_size);
}

const uint8_t* tsr_kernel_rec(const struct tsr_archive* a, size_t kernel) {
  return kernel < a->kern.count ? tsr_rec(&a->kern, (uint32_t)kernel) : NULL;
}

const uint8_t* tsr_variant_rec(const struct tsr_archive* a, size_t kernel, size_t variant,
                               uint32_t* out_global) {
  const uint8_t* kr = tsr_kernel_rec(a, kernel);
  if (!kr || variant >= tsr_le32(kr + 44)) return NULL;
  uint32_t g = tsr_le32(kr + 40) + (uint32_t)variant;
  if (out_global) *out_global = g;
  return tsr_rec(&a->vars, g);
}

static const uint8_t* binding_rec(const struct tsr_archive* a, size_t kernel, size_t binding) {
  const uint8_t* kr = tsr_kernel_rec(a, kernel);
  if (!kr || binding >= tsr_le32(kr + 36)) return NULL;
  return tsr_rec(&a->bind, tsr_le32(kr + 32) + (uint32_t)binding);
}

tsr_status tsr_archive_get_info(const tsr_archive* a, tsr_archive_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  out->major = a->major;
  out->minor = a->minor;
  out->kernel_count = a->kern.count;
  out->metadata_count = a->amet.count;
  out->file_size = a->size;
  return TSR_OK;
}

static tsr_status meta_at(const struct tsr_archive* a, const tsr_table* t, uint32_t first,
                          uint32_t count, size_t i, const char** out_key, const char** out_value) {
  if (!out_key || !out_value) return TSR_ERROR_NULL_ARGUMENT;
  if (i >= count) return TSR_ERROR_INVALID_ARGUMENT;
  const uint8_t* r = tsr_rec(t, first + (uint32_t)i);
  *out_key = tsr_str_at(a, r);
  *out_value = tsr_str_at(a, r + 8);
  return TSR_OK;
}

/* Keys are sorted within a range: binary search. */
static tsr_status meta_find(const struct tsr_archive* a, const tsr_table* t, uint32_t first,
                            uint32_t count, const char* key, const char** out_value) {
  if (!key || !out_value) return TSR_ERROR_NULL_ARGUMENT;
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const uint8_t* r = tsr_rec(t, first + mid);
    int c = strcmp(tsr_str_at(a, r), key);
    if (c == 0) {
      *out_value = tsr_str_at(a, r + 8);
      return TSR_OK;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return TSR_ERROR_NOT_FOUND;
}

tsr_status tsr_archive_metadata_at(const tsr_archive* a, size_t i, const char** out_key,
                                   const char** out_value) {
  if (!a) return TSR_ERROR_NULL_ARGUMENT;
  return meta_at(a, &a->amet, 0, a->amet.count, i, out_key, out_value);
}

tsr_status tsr_archive_metadata_find(const tsr_archive* a, const char* key, const char** out_value) {
  if (!a) return TSR_ERROR_NULL_ARGUMENT;
  return meta_find(a, &a->amet, 0, a->amet.count, key, out_value);
}

tsr_status tsr_archive_kernel_at(const tsr_archive* a, size_t kernel, tsr_kernel_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* kr = tsr_kernel_rec(a, kernel);
  if (!kr) return TSR_ERROR_INVALID_ARGUMENT;
  out->name = tsr_str_at(a, kr);
  out->identity = tsr_str_at(a, kr + 8);
  out->family = tsr_str_at(a, kr + 16);
  out->dtype = tsr_str_at(a, kr + 24);
  out->binding_count = tsr_le32(kr + 36);
  out->scalar_count = 0;
  for (size_t b = 0; b < out->binding_count; ++b)
    out->scalar_count += binding_rec(a, kernel, b)[8] == TSR_ROLE_SCALAR;
  out->buffer_count = out->binding_count - out->scalar_count;
  out->variant_count = tsr_le32(kr + 44);
  out->verdict_count = tsr_le32(kr + 52);
  uint32_t first;
  out->receipt_count = tsr_kernel_receipts(a, kernel, &first);
  return TSR_OK;
}

tsr_status tsr_archive_find_kernel(const tsr_archive* a, const char* name, size_t* out_kernel) {
  if (!a || !name || !out_kernel) return TSR_ERROR_NULL_ARGUMENT;
  uint32_t lo = 0, hi = a->kern.count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = strcmp(tsr_str_at(a, tsr_rec(&a->kern, mid)), name);
    if (c == 0) {
      *out_kernel = mid;
      return TSR_OK;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return TSR_ERROR_NOT_FOUND;
}

tsr_status tsr_kernel_binding_at(const tsr_archive* a, size_t kernel, size_t binding,
                                 tsr_binding_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* br = binding_rec(a, kernel, binding);
  if (!br) return TSR_ERROR_INVALID_ARGUMENT;
  out->name = tsr_str_at(a, br);
  out->role = (tsr_role)br[8];
  out->dtype = (tsr_dtype)br[9];
  out->dim_count = tsr_le32(br + 16);
  return TSR_OK;
}

tsr_status tsr_kernel_dim_at(const tsr_archive* a, size_t kernel, size_t binding, size_t dim,
                             tsr_dim_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* br = binding_rec(a, kernel, binding);
  if (!br || dim >= tsr_le32(br + 16)) return TSR_ERROR_INVALID_ARGUMENT;
  const uint8_t* dr = tsr_rec(&a->dims, tsr_le32(br + 12) + (uint32_t)dim);
  out->is_scalar = dr[0] == 1;
  out->value = out->is_scalar ? 0 : (int64_t)tsr_le64(dr + 8);
  out->scalar_index = out->is_scalar ? tsr_le32(dr + 4) : 0;
  out->scalar_name = NULL;
  if (out->is_scalar) {
    /* Scalars are the last bindings of the kernel, in order. */
    size_t count = tsr_le32(tsr_kernel_rec(a, kernel) + 36), seen = 0;
    for (size_t b = 0; b < count; ++b) {
      const uint8_t* sr = binding_rec(a, kernel, b);
      if (sr[8] == TSR_ROLE_SCALAR && seen++ == out->scalar_index) out->scalar_name = tsr_str_at(a, sr);
    }
  }
  return TSR_OK;
}

tsr_status tsr_kernel_variant_at(const tsr_archive* a, size_t kernel, size_t variant,
                                 tsr_variant_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* vr = tsr_variant_rec(a, kernel, variant, NULL);
  if (!vr) return TSR_ERROR_INVALID_ARGUMENT;
  out->artifact_kind = vr[4] <= TSR_ARTIFACT_XCLBIN ? (tsr_artifact_kind)vr[4] : TSR_ARTIFACT_UNKNOWN;
  out->target_kind = tsr_str_at(a, vr + 8);
  out->arch = tsr_str_at(a, vr + 16);
  out->entry = tsr_str_at(a, vr + 24);
  out->key = tsr_str_at(a, vr + 32);
  out->toolchain = tsr_str_at(a, vr + 40);
  out->offset = tsr_le64(vr + 48);
  out->size = tsr_le64(vr + 56);
  out->sha256 = vr + 64;
  out->metadata_count = tsr_le32(vr + 100);
  return TSR_OK;
}

tsr_status tsr_variant_metadata_at(const tsr_archive* a, size_t kernel, size_t variant, size_t i,
                                   const char** out_key, const char** out_value) {
  if (!a) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* vr = tsr_variant_rec(a, kernel, variant, NULL);
  if (!vr) return TSR_ERROR_INVALID_ARGUMENT;
  return meta_at(a, &a->vmet, tsr_le32(vr + 96), tsr_le32(vr + 100), i, out_key, out_value);
}

tsr_status tsr_variant_metadata_find(const tsr_archive* a, size_t kernel, size_t variant,
                                     const char* key, const char** out_value) {
  if (!a) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* vr = tsr_variant_rec(a, kernel, variant, NULL);
  if (!vr) return TSR_ERROR_INVALID_ARGUMENT;
  return meta_find(a, &a->vmet, tsr_le32(vr + 96), tsr_le32(vr + 100), key, out_value);
}

tsr_status tsr_variant_blob(tsr_archive* a, size_t kernel, size_t variant, const void** out_data,
                            size_t* out_size) {
  if (!a || !out_data || !out_size) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, TSR_MSG(TSR_MSG_ARCHIVE, a));
  if (s != TSR_OK) return s;
  uint32_t g = 0;
  const uint8_t* vr = tsr_variant_rec(a, kernel, variant, &g);
  if (!vr) return TSR_ERROR_INVALID_ARGUMENT;
  const uint8_t* bytes = NULL;
  s = tsr_blob_check(a, g, 0, &bytes);
  if (s != TSR_OK) return s;
  *out_data = bytes;
  *out_size = (size_t)tsr_le64(vr + 56);
  return TSR_OK;
}

tsr_status tsr_kernel_verdict_at(const tsr_archive* a, size_t kernel, size_t verdict,
                                 tsr_verdict_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  const uint8_t* kr = tsr_kernel_rec(a, kernel);
  if (!kr || verdict >= tsr_le32(kr + 52)) return TSR_ERROR_INVALID_ARGUMENT;
  const uint8_t* r = tsr_rec(&a->verd, tsr_le32(kr + 48) + (uint32_t)verdict);
  out->target_kind = tsr_str_at(a, r);
  out->arch = tsr_str_at(a, r + 8);
  out->verdict = (tsr_verdict)r[16];
  uint64_t bits[4];
  for (int i = 0; i < 4; ++i) bits[i] = tsr_le64(r + 24 + 8 * i);
  memcpy(&out->max_abs_err, &bits[0], 8);
  memcpy(&out->max_rel_err, &bits[1], 8);
  memcpy(&out->budget_atol, &bits[2], 8);
  memcpy(&out->budget_rtol, &bits[3], 8);
  out->seed = tsr_le64(r + 56);
  out->reason = tsr_str_at(a, r + 64);
  return TSR_OK;
}

tsr_status tsr_kernel_receipt_at(const tsr_archive* a, size_t kernel, size_t receipt, tsr_receipt_info* out) {
  if (!a || !out) return TSR_ERROR_NULL_ARGUMENT;
  tsr_status s = kernel_ready(a, kernel, NULL, 0);
  if (s != TSR_OK) return s;
  uint32_t first;
  if (receipt >= tsr_kernel_receipts(a, kernel, &first)) return TSR_ERROR_INVALID_ARGUMENT;
  const uint8_t* r = tsr_rec(&a->rcpt, first + (uint32_t)receipt);
  out->target_kind = tsr_str_at(a, r + 8);
  out->arch = tsr_str_at(a, r + 16);
  out->artifact_sha256 = r + 24;
  out->bytes = tsr_str_at(a, r + 56);
  out->size = tsr_le32(r + 60);
  return TSR_OK;
}
