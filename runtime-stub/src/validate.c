/* The archive validator: every rule of docs/archive-format.md beyond what
 * open checks (reader.c). A kernel's own records are checked on its first
 * use (tsr_kernel_check: all cheap, no blob bytes read); tsr_archive_verify
 * adds the index hash and layout, blob order across kernels, padding and
 * both checksums of every blob. The compiler reads archives through these
 * same functions (src/pipeline/archive/archive_reader.cc). */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_internal.h"

#define FAIL(code, ...) do { tsr_set_message(msg, msg_size, __VA_ARGS__); return (code); } while (0)
#define CORRUPT(...) FAIL(TSR_ERROR_CORRUPT, __VA_ARGS__)

static int str_cmp(const struct tsr_archive* a, const uint8_t* x, const uint8_t* y) {
  return strcmp(tsr_str_at(a, x), tsr_str_at(a, y));
}

/* (kind, arch) pairs at byte offset `at` of two records: <0, 0, >0. */
static int target_cmp(const struct tsr_archive* a, const uint8_t* prev, const uint8_t* cur, int at) {
  int c = str_cmp(a, prev + at, cur + at);
  return c != 0 ? c : str_cmp(a, prev + at + 8, cur + at + 8);
}

/* Target kind and arch at ref, ref + 8: strings of [A-Za-z0-9_.+-]. */
static int target_ok(const struct tsr_archive* a, const uint8_t* ref) {
  return tsr_str_in_bounds(a, ref) && tsr_str_in_bounds(a, ref + 8) &&
         tsr_is_target_name(tsr_str_at(a, ref)) && tsr_is_target_name(tsr_str_at(a, ref + 8));
}

static int cmp_names(const void* x, const void* y) {
  return strcmp(*(const char* const*)x, *(const char* const*)y);
}

/* The first name of `names` that appears twice, or NULL; sorts names. */
static const char* first_duplicate(const char** names, uint32_t n) {
  qsort(names, n, sizeof *names, cmp_names);
  for (uint32_t i = 1; i < n; ++i)
    if (strcmp(names[i - 1], names[i]) == 0) return names[i];
  return NULL;
}

static tsr_status check_bindings(const struct tsr_archive* a, const char* name, uint32_t fb,
                                 uint32_t nb, char* msg, size_t msg_size) {
  char q[TSR_QUOTE_SIZE];
  uint32_t scalars = 0;
  for (uint32_t i = 0; i < nb; ++i) {
    const uint8_t* br = tsr_rec(&a->bind, fb + i);
    if (!tsr_str_in_bounds(a, br) || !tsr_is_identifier(tsr_str_at(a, br))) {
      if (tsr_str_in_bounds(a, br)) tsr_quote(q, tsr_str_at(a, br));
      else snprintf(q, sizeof q, "%s", "?");
      CORRUPT("kernel '%s': binding %u name '%s' is not a C identifier", name, i, q);
    }
    const char* bname = tsr_str_at(a, br);
    uint8_t role = br[8], dtype = br[9];
    if (role > TSR_ROLE_SCALAR) CORRUPT("kernel '%s': binding '%s' has role %u", name, bname, role);
    if (i > 0 && role < tsr_rec(&a->bind, fb + i - 1)[8])
      CORRUPT("kernel '%s': binding '%s' is out of order (inputs, outputs, then scalars)", name, bname);
    if (role == TSR_ROLE_SCALAR ? dtype != TSR_DTYPE_I64 : (dtype < TSR_DTYPE_F32 || dtype > TSR_DTYPE_BF16))
      CORRUPT("kernel '%s': binding '%s' has a bad dtype", name, bname);
    if (role == TSR_ROLE_SCALAR && tsr_le32(br + 16) != 0)
      CORRUPT("kernel '%s': scalar '%s' has a shape", name, bname);
    scalars += role == TSR_ROLE_SCALAR;
  }
  for (uint32_t i = 0; i < nb; ++i) {
    const uint8_t* br = tsr_rec(&a->bind, fb + i);
    for (uint32_t d = 0; d < tsr_le32(br + 16); ++d) {
      const uint8_t* dr = tsr_rec(&a->dims, tsr_le32(br + 12) + d);
      int bad = dr[0] == 0 ? (int64_t)tsr_le64(dr + 8) < 0 : dr[0] != 1 || tsr_le32(dr + 4) >= scalars;
      if (bad) CORRUPT("kernel '%s': binding '%s' dim %u is invalid", name, tsr_str_at(a, br), d);
    }
  }
  /* Unique names: sorted copies, so a kernel with many bindings costs n log n. */
  const char* small[32];
  const char** names = nb <= 32 ? small : (const char**)malloc(nb * sizeof *names);
  if (!names) FAIL(TSR_ERROR_OUT_OF_MEMORY, "out of memory");
  for (uint32_t i = 0; i < nb; ++i) names[i] = tsr_str_at(a, tsr_rec(&a->bind, fb + i));
  const char* dup = first_duplicate(names, nb);
  if (dup) tsr_set_message(msg, msg_size, "kernel '%s': binding '%s' appears twice", name, dup);
  if (names != small) free(names);
  return dup ? TSR_ERROR_CORRUPT : TSR_OK;
}

static tsr_status check_variants(const struct tsr_archive* a, uint32_t k, const char* name,
                                 uint32_t fv, uint32_t nv, char* msg, size_t msg_size) {
  static const char* const fields[3] = {"entry", "key", "toolchain"};
  char where[200];
  uint64_t blob_end = a->blob_offset;
  for (uint32_t i = 0; i < nv; ++i) {
    const uint8_t* vr = tsr_rec(&a->vars, fv + i);
    if (tsr_le32(vr) != k) CORRUPT("kernel '%s': variant %u has a bad kernel index", name, i);
    if (!target_ok(a, vr + 8)) CORRUPT("kernel '%s': variant %u has a bad target kind or arch", name, i);
    snprintf(where, sizeof where, "kernel '%s' variant %s:%s", name, tsr_str_at(a, vr + 8),
             tsr_str_at(a, vr + 16));
    if (vr[4] == TSR_ARTIFACT_UNKNOWN) CORRUPT("%s: artifact kind 0 is not a kind", where);
    for (int f = 0; f < 3; ++f) {
      const char* why = tsr_str_problem(a, vr + 24 + 8 * f);
      if (why) CORRUPT("%s: %s %s", where, fields[f], why);
    }
    if (i > 0) {
      int c = target_cmp(a, tsr_rec(&a->vars, fv + i - 1), vr, 8);
      if (c == 0) CORRUPT("%s: target appears twice", where);
      if (c > 0) CORRUPT("%s: variants not sorted by target", where);
    }
    /* Blob ranges: aligned, inside the archive, in file order within the
     * kernel; across kernels, tsr_check_all_kernels. */
    uint64_t off = tsr_le64(vr + 48), size = tsr_le64(vr + 56);
    if (off % a->blob_alignment != 0 || off < blob_end || !tsr_range_ok(off, size, a->size))
      CORRUPT("%s: blob range [%llu, +%llu) is invalid", where, (unsigned long long)off,
              (unsigned long long)size);
    blob_end = off + size;
    tsr_status s = tsr_check_meta(a, &a->vmet, tsr_le32(vr + 96), tsr_le32(vr + 100), where, msg, msg_size);
    if (s != TSR_OK) return s;
  }
  return TSR_OK;
}

static tsr_status check_verdicts(const struct tsr_archive* a, const char* name, uint32_t fd,
                                 uint32_t nd, char* msg, size_t msg_size) {
  for (uint32_t i = 0; i < nd; ++i) {
    const uint8_t* dr = tsr_rec(&a->verd, fd + i);
    if (!target_ok(a, dr)) CORRUPT("kernel '%s': verdict %u has a bad target kind or arch", name, i);
    const char *kind = tsr_str_at(a, dr), *arch = tsr_str_at(a, dr + 8);
    const char* why = tsr_str_problem(a, dr + 64);
    if (why) CORRUPT("kernel '%s' verdict %s:%s: reason %s", name, kind, arch, why);
    if (i > 0) {
      int c = target_cmp(a, tsr_rec(&a->verd, fd + i - 1), dr, 0);
      if (c == 0) CORRUPT("kernel '%s' verdict %s:%s: target appears twice", name, kind, arch);
      if (c > 0) CORRUPT("kernel '%s' verdict %s:%s: verdicts not sorted by target", name, kind, arch);
    }
  }
  return TSR_OK;
}

/* The variant record of kernel k whose (kind, arch) is that of record r
 * (both at offset 8), or NULL. */
static const uint8_t* same_target_variant(const struct tsr_archive* a, uint32_t k, const uint8_t* r) {
  const uint8_t* kr = tsr_rec(&a->kern, k);
  for (uint32_t i = 0; i < tsr_le32(kr + 44); ++i) {
    const uint8_t* vr = tsr_rec(&a->vars, tsr_le32(kr + 40) + i);
    if (target_cmp(a, vr, r, 8) == 0) return vr;
  }
  return NULL;
}

int tsr_variant_qualified(const struct tsr_archive* a, size_t k, const uint8_t* vr) {
  uint32_t first, n = tsr_kernel_receipts(a, k, &first);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* r = tsr_rec(&a->rcpt, first + i);
    if (target_cmp(a, vr, r, 8) == 0 && memcmp(vr + 64, r + 24, 32) == 0) return 1;
  }
  return 0;
}

/* Receipts (format 2.1): each binds to a variant of its kernel by kind:arch
 * and blob SHA-256, so the runtime policy can trust the binding without
 * parsing TOML; sorted by (kind, arch, bytes), unique, of bounded size. */
static tsr_status check_receipts(const struct tsr_archive* a, uint32_t k, const char* name, char* msg,
                                 size_t msg_size) {
  char where[200];
  uint32_t first, n = tsr_kernel_receipts(a, k, &first);
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* r = tsr_rec(&a->rcpt, first + i);
    if (!target_ok(a, r + 8)) CORRUPT("kernel '%s': receipt %u has a bad target kind or arch", name, i);
    snprintf(where, sizeof where, "kernel '%s' receipt %s:%s", name, tsr_str_at(a, r + 8), tsr_str_at(a, r + 16));
    const char* why = tsr_str_problem(a, r + 56);
    if (why) CORRUPT("%s: text %s", where, why);
    uint32_t size = tsr_le32(r + 60);
    if (size == 0 || size > TSR_RECEIPT_MAX_SIZE) CORRUPT("%s: size %u is not in 1..%u", where, size, TSR_RECEIPT_MAX_SIZE);
    const uint8_t* vr = same_target_variant(a, k, r);
    if (!vr) CORRUPT("%s: the kernel has no variant of that target", where);
    if (memcmp(vr + 64, r + 24, 32) != 0) CORRUPT("%s: artifact sha256 is not the variant's", where);
    if (i > 0) {
      const uint8_t* prev = tsr_rec(&a->rcpt, first + i - 1);
      int c = target_cmp(a, prev, r, 8);
      if (c == 0) c = str_cmp(a, prev + 56, r + 56);
      if (c == 0) CORRUPT("%s: receipt appears twice", where);
      if (c > 0) CORRUPT("%s: receipts not sorted by target and bytes", where);
    }
  }
  return TSR_OK;
}

/* Everything about the records kernel k owns; their ranges were checked at open. */
static tsr_status check_kernel(const struct tsr_archive* a, uint32_t k, char* msg, size_t msg_size) {
  const uint8_t* kr = tsr_rec(&a->kern, k);
  const char* name = tsr_str_at(a, kr);   /* in bounds since open */
  if (!tsr_is_identifier(name)) {
    char q[TSR_QUOTE_SIZE];
    tsr_quote(q, name);
    CORRUPT("kernel '%s': name is not a C identifier", q);
  }
  if (!tsr_str_in_bounds(a, kr + 8) || !tsr_is_identity(tsr_str_at(a, kr + 8)))
    CORRUPT("kernel '%s': identity is not 64 lower-case hex digits", name);
  const char* why = tsr_str_problem(a, kr + 16);
  if (why) CORRUPT("kernel '%s': family %s", name, why);
  if (!tsr_str_in_bounds(a, kr + 24) || tsr_dtype_from_name(tsr_str_at(a, kr + 24)) == TSR_DTYPE_INVALID)
    CORRUPT("kernel '%s': storage dtype is not f32, f16 or bf16", name);
  tsr_status s = check_bindings(a, name, tsr_le32(kr + 32), tsr_le32(kr + 36), msg, msg_size);
  if (s == TSR_OK) s = check_variants(a, k, name, tsr_le32(kr + 40), tsr_le32(kr + 44), msg, msg_size);
  if (s == TSR_OK) s = check_verdicts(a, name, tsr_le32(kr + 48), tsr_le32(kr + 52), msg, msg_size);
  if (s == TSR_OK) s = check_receipts(a, k, name, msg, msg_size);
  return s;
}

tsr_status tsr_kernel_check(const struct tsr_archive* a, size_t k, char* msg, size_t msg_size) {
  unsigned char* state = &a->kernel_state[k];
  unsigned char st = __atomic_load_n(state, __ATOMIC_ACQUIRE);
  if (st == TSR_KERNEL_OK) return TSR_OK;
  if (st == TSR_KERNEL_BAD && !msg) return TSR_ERROR_CORRUPT;
  /* Unchecked, or bad and the caller wants the reason: (re)run the check,
   * under the archive's lock so that threads racing to a kernel's first use
   * run it once and the others take its result. The lock and the counters
   * are not part of the archive's logical (const) state. */
  struct tsr_archive* m = (struct tsr_archive*)a;
  pthread_mutex_lock(&m->lock);
  st = __atomic_load_n(state, __ATOMIC_RELAXED);   /* another thread may have checked meanwhile */
  tsr_status s = st == TSR_KERNEL_OK ? TSR_OK : TSR_ERROR_CORRUPT;
  if (st == TSR_KERNEL_UNCHECKED || (st == TSR_KERNEL_BAD && msg)) {
    ++m->lazy.kernel_checks;
    s = check_kernel(a, (uint32_t)k, msg, msg_size);
    /* Out of memory says nothing about the records: leave them unchecked. */
    if (s != TSR_ERROR_OUT_OF_MEMORY)
      __atomic_store_n(state, s == TSR_OK ? TSR_KERNEL_OK : TSR_KERNEL_BAD, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&m->lock);
  return s;
}

tsr_status tsr_check_all_kernels(const struct tsr_archive* a, char* msg, size_t msg_size) {
  for (uint32_t k = 0; k < a->kern.count; ++k) {
    tsr_status s = tsr_kernel_check(a, k, msg, msg_size);
    if (s != TSR_OK) return s;
  }
  /* Blob ranges in file order across kernels (within one, checked above). */
  uint64_t blob_end = a->blob_offset;
  for (uint32_t v = 0; v < a->vars.count; ++v) {
    const uint8_t* vr = tsr_rec(&a->vars, v);
    uint64_t off = tsr_le64(vr + 48), size = tsr_le64(vr + 56);
    if (off < blob_end)
      CORRUPT("kernel '%s' variant %s:%s: blob range [%llu, +%llu) overlaps the blob before it",
              tsr_str_at(a, tsr_rec(&a->kern, tsr_le32(vr))), tsr_str_at(a, vr + 8),
              tsr_str_at(a, vr + 16), (unsigned long long)off, (unsigned long long)size);
    blob_end = off + size;
  }
  return TSR_OK;
}

static int all_zero(const uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i]) return 0;
  return 1;
}

static int cmp_u32(const void* x, const void* y) {
  uint32_t a = *(const uint32_t*)x, b = *(const uint32_t*)y;
  return a < b ? -1 : a > b;
}

/* What open does not check about the index (it is covered by the index
 * checksums, so only a resealed index gets here): printable tags, each
 * once, zero padding after each section, STRS ending in NUL. */
static tsr_status check_index_layout(const struct tsr_archive* a, const uint8_t* data, char* msg,
                                     size_t msg_size) {
  const uint8_t* index = data + tsr_le64(data + 24);
  uint64_t index_size = tsr_le64(data + 32);
  uint32_t* tags = (uint32_t*)malloc((size_t)(index_size / 16 + 1) * sizeof *tags);
  if (!tags) FAIL(TSR_ERROR_OUT_OF_MEMORY, "out of memory");
  size_t n = 0;
  tsr_status s = TSR_OK;
  for (uint64_t pos = 0; pos < index_size && s == TSR_OK;) {
    uint64_t end = pos + 16 + tsr_le64(index + pos + 8), next = (end + 7) & ~(uint64_t)7;
    for (int i = 0; i < 4; ++i)
      if (index[pos + i] < 0x21 || index[pos + i] > 0x7e) {
        tsr_set_message(msg, msg_size, "index: section at %llu has a tag that is not printable ASCII",
                        (unsigned long long)pos);
        s = TSR_ERROR_CORRUPT;
      }
    if (s == TSR_OK && !all_zero(index + end, next - end)) {
      tsr_set_message(msg, msg_size, "index: nonzero padding after section %.4s", (const char*)index + pos);
      s = TSR_ERROR_CORRUPT;
    }
    tags[n++] = tsr_le32(index + pos);
    pos = next;
  }
  qsort(tags, n, sizeof *tags, cmp_u32);
  for (size_t i = 1; i < n && s == TSR_OK; ++i)
    if (tags[i] == tags[i - 1]) {
      uint8_t t[4] = {(uint8_t)tags[i], (uint8_t)(tags[i] >> 8), (uint8_t)(tags[i] >> 16), (uint8_t)(tags[i] >> 24)};
      tsr_set_message(msg, msg_size, "index: duplicate section %.4s", (const char*)t);
      s = TSR_ERROR_CORRUPT;
    }
  free(tags);
  if (s == TSR_OK && a->strs_size > 0 && a->strs[a->strs_size - 1] != 0)
    CORRUPT("section STRS: does not end with a NUL byte");
  return s;
}

/* Zero padding between the index and the blobs, between blobs and after
 * the last one, and both checksums of every blob. */
static tsr_status check_blob_area(struct tsr_archive* a, const uint8_t* data, char* msg, size_t msg_size) {
  uint64_t pos = tsr_le64(data + 24) + tsr_le64(data + 32), limit;
  for (uint32_t v = 0; v <= a->vars.count; ++v) {
    limit = v < a->vars.count ? tsr_le64(tsr_rec(&a->vars, v) + 48) : a->size;
    if (!all_zero(data + pos, limit - pos))
      CORRUPT("nonzero padding in [%llu, %llu)", (unsigned long long)pos, (unsigned long long)limit);
    if (v == a->vars.count) break;
    tsr_status s = tsr_blob_check(a, v, 1, NULL);
    if (s != TSR_OK) FAIL(s, "%s", tsr_message_text(TSR_MSG_ARCHIVE, a->message_id));
    pos = limit + tsr_le64(tsr_rec(&a->vars, v) + 56);
  }
  return TSR_OK;
}

tsr_status tsr_archive_verify(tsr_archive* a, char* msg, size_t msg_size) {
  if (!a) return TSR_ERROR_NULL_ARGUMENT;
  tsr_set_message(msg, msg_size, "%s", "");
  /* data: the whole archive, as tsr_map_all saw it under the archive's lock. */
  const uint8_t* data = NULL;
  tsr_status s = tsr_map_all(a, &data);
  if (s != TSR_OK) FAIL(s, "%s", tsr_message_text(TSR_MSG_ARCHIVE, a->message_id));
  /* Open checked the index's CRC-32C; the SHA-256 catches what a CRC can miss. */
  uint8_t digest[32];
  tsr_sha256(data + tsr_le64(data + 24), (size_t)tsr_le64(data + 32), digest);
  if (memcmp(digest, data + 64, 32) != 0) FAIL(TSR_ERROR_CHECKSUM, "archive index sha256 mismatch");
  if ((s = check_index_layout(a, data, msg, msg_size)) != TSR_OK) return s;
  if ((s = tsr_check_all_kernels(a, msg, msg_size)) != TSR_OK) return s;
  if (a->data_len != a->size)
    CORRUPT("%llu bytes after the declared end of the archive", (unsigned long long)(a->data_len - a->size));
  return check_blob_area(a, data, msg, msg_size);
}
