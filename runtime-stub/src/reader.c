/* The archive parser: validates header, checksums, table bounds, the kernel
 * table and record ownership of a .tfat file (docs/archive-format.md, format
 * 1.x) at open, and the rest of each kernel's records on its first use
 * (tsr_kernel_check). All input is untrusted; every offset and count goes
 * through tsr_range_ok. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_internal.h"

static const uint8_t k_magic[8] = {0x89, 'T', 'F', 'A', 'T', '\r', '\n', 0x1a};
#define TSR_MAX_HEADER_SIZE 65536u

#define FAIL(code, ...) do { tsr_set_message(msg, msg_size, __VA_ARGS__); return (code); } while (0)

const char* tsr_str_at(const struct tsr_archive* a, const uint8_t* ref) {
  return (const char*)a->strs + tsr_le32(ref);
}

/* A string reference is valid when its bytes and the terminating NUL lie in
 * STRS and it has no embedded NUL: the first NUL at or after offset is at
 * offset + length. */
static int str_ok(const struct tsr_archive* a, const uint8_t* ref) {
  uint64_t off = tsr_le32(ref), len = tsr_le32(ref + 4);
  if (!tsr_range_ok(off, len + 1, a->strs_size) || a->strs[off + len] != 0) return 0;
  return memchr(a->strs + off, 0, (size_t)len) == NULL;
}

static int str_cmp(const struct tsr_archive* a, const uint8_t* x, const uint8_t* y) {
  return strcmp(tsr_str_at(a, x), tsr_str_at(a, y));
}

static int strs_ok(const struct tsr_archive* a, const uint8_t* rec, int first, int n) {
  for (int i = 0; i < n; ++i)
    if (!str_ok(a, rec + 8 * (first + i))) return 0;
  return 1;
}

static tsr_status parse_table(const uint8_t* payload, uint64_t size, uint32_t min_record,
                              tsr_table* out, const char* tag, char* msg, size_t msg_size) {
  if (size < 8) FAIL(TSR_ERROR_CORRUPT, "section %s: shorter than its table header", tag);
  out->record_size = tsr_le32(payload);
  out->count = tsr_le32(payload + 4);
  out->base = payload + 8;
  uint64_t bytes;
  if (out->record_size < min_record)
    FAIL(TSR_ERROR_CORRUPT, "section %s: record size %u < %u", tag, out->record_size, min_record);
  if (!tsr_mul_u64(out->record_size, out->count, &bytes) || bytes > size - 8)
    FAIL(TSR_ERROR_CORRUPT, "section %s: %u records do not fit", tag, out->count);
  return TSR_OK;
}

/* Key/value records of one range: valid strings, non-empty keys, strictly sorted. */
static tsr_status check_meta(const struct tsr_archive* a, const tsr_table* t, uint32_t first,
                             uint32_t count, const char* what, char* msg, size_t msg_size) {
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* r = tsr_rec(t, first + i);
    if (!strs_ok(a, r, 0, 2)) FAIL(TSR_ERROR_CORRUPT, "%s metadata %u: bad string reference", what, i);
    if (tsr_le32(r + 4) == 0) FAIL(TSR_ERROR_CORRUPT, "%s metadata %u: empty key", what, i);
    if (i > 0 && str_cmp(a, tsr_rec(t, first + i - 1), r) >= 0)
      FAIL(TSR_ERROR_CORRUPT, "%s metadata: keys not strictly sorted at %u", what, i);
  }
  return TSR_OK;
}

/* A range [first, first+count) must start where the previous one ended. */
static int take_range(uint64_t* next, uint32_t first, uint32_t count, uint32_t total) {
  if (first != *next) return 0;
  *next += count;
  return *next <= total;
}

/* (kind, arch) pairs at byte offset `at` of each record, strictly sorted. */
static int target_sorted(const struct tsr_archive* a, const uint8_t* prev, const uint8_t* cur, int at) {
  int c = str_cmp(a, prev + at, cur + at);
  if (c == 0) c = str_cmp(a, prev + at + 8, cur + at + 8);
  return c < 0;
}

/* At open: the kernel's name (binary search depends on sorted names) and the
 * ranges of records it owns, integer checks only. */
static tsr_status open_kernel(struct tsr_archive* a, uint32_t k, uint64_t* next_bind,
                              uint64_t* next_dim, uint64_t* next_var, uint64_t* next_vmeta,
                              uint64_t* next_verd, char* msg, size_t msg_size) {
  const uint8_t* kr = tsr_rec(&a->kern, k);
  if (!str_ok(a, kr)) FAIL(TSR_ERROR_CORRUPT, "kernel %u: bad string reference", k);
  const char* name = tsr_str_at(a, kr);
  if (tsr_le32(kr + 4) == 0) FAIL(TSR_ERROR_CORRUPT, "kernel %u: empty name", k);
  if (k > 0 && str_cmp(a, tsr_rec(&a->kern, k - 1), kr) >= 0)
    FAIL(TSR_ERROR_CORRUPT, "kernel '%s': names not strictly sorted", name);
  uint32_t fb = tsr_le32(kr + 32), nb = tsr_le32(kr + 36);
  uint32_t fv = tsr_le32(kr + 40), nv = tsr_le32(kr + 44);
  uint32_t fd = tsr_le32(kr + 48), nd = tsr_le32(kr + 52);
  if (!take_range(next_bind, fb, nb, a->bind.count) || !take_range(next_var, fv, nv, a->vars.count) ||
      !take_range(next_verd, fd, nd, a->verd.count))
    FAIL(TSR_ERROR_CORRUPT, "kernel '%s': binding, variant or verdict range out of place", name);
  for (uint32_t i = 0; i < nb; ++i) {
    const uint8_t* br = tsr_rec(&a->bind, fb + i);
    if (!take_range(next_dim, tsr_le32(br + 12), tsr_le32(br + 16), a->dims.count))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': binding %u dim range out of place", name, i);
  }
  for (uint32_t i = 0; i < nv; ++i) {
    const uint8_t* vr = tsr_rec(&a->vars, fv + i);
    if (!take_range(next_vmeta, tsr_le32(vr + 96), tsr_le32(vr + 100), a->vmet.count))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': variant %u metadata range out of place", name, i);
  }
  return TSR_OK;
}

/* On first use: everything else about the records kernel k owns. Their
 * ranges were checked at open. */
static tsr_status check_kernel(const struct tsr_archive* a, uint32_t k, char* msg, size_t msg_size) {
  const uint8_t* kr = tsr_rec(&a->kern, k);
  if (!strs_ok(a, kr, 1, 3)) FAIL(TSR_ERROR_CORRUPT, "kernel %u: bad string reference", k);
  const char* name = tsr_str_at(a, kr);
  if (tsr_le32(kr + 12) != 64) FAIL(TSR_ERROR_CORRUPT, "kernel '%s': identity is not 64 hex digits", name);
  uint32_t fb = tsr_le32(kr + 32), nb = tsr_le32(kr + 36);
  uint32_t fv = tsr_le32(kr + 40), nv = tsr_le32(kr + 44);
  uint32_t fd = tsr_le32(kr + 48), nd = tsr_le32(kr + 52);

  /* Bindings: role order in, out, scalar; scalars are i64 without dims. */
  uint32_t scalars = 0;
  for (uint32_t i = 0; i < nb; ++i) {
    const uint8_t* br = tsr_rec(&a->bind, fb + i);
    uint8_t role = br[8], dtype = br[9];
    if (!strs_ok(a, br, 0, 1) || role > TSR_ROLE_SCALAR ||
        (i > 0 && role < tsr_rec(&a->bind, fb + i - 1)[8]))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': binding %u has a bad name or role", name, i);
    if (role == TSR_ROLE_SCALAR ? (dtype != TSR_DTYPE_I64 || tsr_le32(br + 16) != 0)
                                : (dtype < TSR_DTYPE_F32 || dtype > TSR_DTYPE_BF16))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': binding %u has a bad dtype", name, i);
    scalars += role == TSR_ROLE_SCALAR;
  }
  for (uint32_t i = 0; i < nb; ++i) {
    const uint8_t* br = tsr_rec(&a->bind, fb + i);
    for (uint32_t d = 0; d < tsr_le32(br + 16); ++d) {
      const uint8_t* dr = tsr_rec(&a->dims, tsr_le32(br + 12) + d);
      int bad = dr[0] == 0 ? (int64_t)tsr_le64(dr + 8) < 0
                           : dr[0] != 1 || tsr_le32(dr + 4) >= scalars;
      if (bad) FAIL(TSR_ERROR_CORRUPT, "kernel '%s': binding %u dim %u is invalid", name, i, d);
    }
  }

  /* Blob ranges: aligned, inside the archive's blob region, in file order
   * within the kernel; across kernels, tsr_check_all_kernels. */
  uint64_t blob_end = a->blob_offset;
  for (uint32_t i = 0; i < nv; ++i) {
    const uint8_t* vr = tsr_rec(&a->vars, fv + i);
    if (tsr_le32(vr) != k || !strs_ok(a, vr + 8, 0, 5))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': variant %u has a bad kernel index or string", name, i);
    if (i > 0 && !target_sorted(a, tsr_rec(&a->vars, fv + i - 1), vr, 8))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': variants not strictly sorted by target", name);
    uint64_t off = tsr_le64(vr + 48), size = tsr_le64(vr + 56);
    if (off % a->blob_alignment != 0 || off < blob_end || !tsr_range_ok(off, size, a->size))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': variant %u blob range [%llu, +%llu) is invalid", name, i,
           (unsigned long long)off, (unsigned long long)size);
    blob_end = off + size;
    tsr_status s = check_meta(a, &a->vmet, tsr_le32(vr + 96), tsr_le32(vr + 100), name, msg, msg_size);
    if (s != TSR_OK) return s;
  }
  for (uint32_t i = 0; i < nd; ++i) {
    const uint8_t* dr = tsr_rec(&a->verd, fd + i);
    if (!strs_ok(a, dr, 0, 2) || !str_ok(a, dr + 64))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': verdict %u has a bad string", name, i);
    if (i > 0 && !target_sorted(a, tsr_rec(&a->verd, fd + i - 1), dr, 0))
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': verdicts not strictly sorted by target", name);
  }
  return TSR_OK;
}

tsr_status tsr_kernel_check(const struct tsr_archive* a, size_t k, char* msg, size_t msg_size) {
  unsigned char* state = &a->kernel_state[k];
  unsigned char st = __atomic_load_n(state, __ATOMIC_ACQUIRE);
  if (st == TSR_KERNEL_OK) return TSR_OK;
  if (st == TSR_KERNEL_BAD && !msg) return TSR_ERROR_CORRUPT;
  /* Unchecked, or bad and the caller wants the reason: (re)run the check.
   * It only reads the archive, so racing threads compute the same state. */
  tsr_status s = check_kernel(a, (uint32_t)k, msg, msg_size);
  __atomic_store_n(state, s == TSR_OK ? TSR_KERNEL_OK : TSR_KERNEL_BAD, __ATOMIC_RELEASE);
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
    if (off < blob_end) {
      const uint8_t* kr = tsr_rec(&a->kern, tsr_le32(vr));
      FAIL(TSR_ERROR_CORRUPT, "kernel '%s': variant %u blob range [%llu, +%llu) is invalid",
           tsr_str_at(a, kr), v - tsr_le32(kr + 40), (unsigned long long)off,
           (unsigned long long)size);
    }
    blob_end = off + size;
  }
  return TSR_OK;
}

static tsr_status parse_header(struct tsr_archive* a, const uint8_t* d, uint64_t data_len,
                               uint64_t* index_off, uint64_t* index_size, char* msg,
                               size_t msg_size) {
  if (data_len < 16) FAIL(TSR_ERROR_TRUNCATED, "archive truncated: %llu bytes, header needs %u",
                          (unsigned long long)data_len, TSR_HEADER_SIZE_V1);
  if (memcmp(d, k_magic, 8) != 0) FAIL(TSR_ERROR_BAD_MAGIC, "not a tesserac archive (bad magic)");
  a->major = tsr_le16(d + 8);
  a->minor = tsr_le16(d + 10);
  if (a->major != TSR_MAJOR)
    FAIL(TSR_ERROR_UNSUPPORTED_VERSION,
         "unsupported archive format version %u.%u (this reader reads %u.x)", a->major, a->minor,
         TSR_MAJOR);
  uint32_t header_size = tsr_le32(d + 12);
  if (header_size < TSR_HEADER_SIZE_V1 || header_size % 8 != 0 || header_size > TSR_MAX_HEADER_SIZE)
    FAIL(TSR_ERROR_CORRUPT, "archive header size %u is invalid", header_size);
  if (data_len < header_size)
    FAIL(TSR_ERROR_TRUNCATED, "archive truncated: %llu bytes, header needs %u",
         (unsigned long long)data_len, header_size);

  uint8_t* copy = (uint8_t*)malloc(header_size);
  if (!copy) FAIL(TSR_ERROR_OUT_OF_MEMORY, "out of memory");
  memcpy(copy, d, header_size);
  memset(copy + 96, 0, 32);
  uint8_t digest[32];
  tsr_sha256(copy, header_size, digest);
  free(copy);
  if (memcmp(digest, d + 96, 32) != 0) FAIL(TSR_ERROR_CHECKSUM, "archive header checksum mismatch");

  a->size = tsr_le64(d + 16);
  *index_off = tsr_le64(d + 24);
  *index_size = tsr_le64(d + 32);
  a->blob_offset = tsr_le64(d + 40);
  a->blob_alignment = tsr_le32(d + 48);
  if (a->size > data_len)
    FAIL(TSR_ERROR_TRUNCATED, "archive truncated: %llu of %llu bytes", (unsigned long long)data_len,
         (unsigned long long)a->size);
  uint32_t al = a->blob_alignment;
  uint64_t index_end;
  if (al < 8 || al > (1u << 24) || (al & (al - 1)) != 0 || *index_off < header_size ||
      *index_off % 8 != 0 || *index_size % 8 != 0 ||
      !tsr_add_u64(*index_off, *index_size, &index_end) || index_end > a->blob_offset ||
      a->blob_offset % al != 0 || a->blob_offset > a->size)
    FAIL(TSR_ERROR_CORRUPT, "archive header layout is invalid");
  /* CRC-32C, not the index SHA-256 (tsr_archive_verify checks that one): it
   * catches every burst of up to 32 flipped bits at a fraction of the cost. */
  if (tsr_crc32c(d + *index_off, (size_t)*index_size) != tsr_le32(d + 52))
    FAIL(TSR_ERROR_CHECKSUM, "archive index checksum mismatch");
  return TSR_OK;
}

static tsr_status parse_index(struct tsr_archive* a, uint64_t data_len, char* msg, size_t msg_size);

tsr_status tsr_parse(struct tsr_archive* a, uint64_t data_len, char* msg, size_t msg_size) {
  return parse_index(a, data_len, msg, msg_size);
}

static tsr_status parse_index(struct tsr_archive* a, uint64_t data_len, char* msg, size_t msg_size) {
  uint64_t index_off = 0, index_size = 0;
  tsr_status s = parse_header(a, a->head, data_len, &index_off, &index_size, msg, msg_size);
  if (s != TSR_OK) return s;

  static const char* const tags[7] = {"STRS", "AMET", "KERN", "BIND", "DIMS", "VARS", "VMET"};
  static const uint32_t mins[8] = {0, TSR_META_RECORD, TSR_KERN_RECORD, TSR_BIND_RECORD,
                                   TSR_DIMS_RECORD, TSR_VARS_RECORD, TSR_META_RECORD, TSR_VERD_RECORD};
  tsr_table* tables[8] = {NULL, &a->amet, &a->kern, &a->bind, &a->dims, &a->vars, &a->vmet, &a->verd};
  const uint8_t* payload[8] = {0};
  uint64_t payload_size[8] = {0};
  const uint8_t* index = a->head + index_off;
  for (uint64_t pos = 0; pos < index_size;) {
    if (index_size - pos < 16) FAIL(TSR_ERROR_CORRUPT, "index: section header at %llu cut short",
                                    (unsigned long long)pos);
    uint64_t size = tsr_le64(index + pos + 8), end;
    if (!tsr_range_ok(pos + 16, size, index_size) || !tsr_add_u64(pos + 16, size, &end))
      FAIL(TSR_ERROR_CORRUPT, "index: section at %llu overruns the index", (unsigned long long)pos);
    int which = -1;
    for (int t = 0; t < 8; ++t)
      if (memcmp(index + pos, t < 7 ? tags[t] : "VERD", 4) == 0) which = t;
    if (which >= 0) {
      if (payload[which]) FAIL(TSR_ERROR_CORRUPT, "index: duplicate section %.4s", (const char*)index + pos);
      payload[which] = index + pos + 16;
      payload_size[which] = size;
    }
    pos = (end + 7) & ~(uint64_t)7;   /* unknown tags: a newer minor version, skipped */
  }
  for (int t = 0; t < 8; ++t) {
    const char* tag = t < 7 ? tags[t] : "VERD";
    if (!payload[t]) FAIL(TSR_ERROR_CORRUPT, "index: required section %s missing", tag);
    if (t > 0) {
      s = parse_table(payload[t], payload_size[t], mins[t], tables[t], tag, msg, msg_size);
      if (s != TSR_OK) return s;
    }
  }
  a->strs = payload[0];
  a->strs_size = payload_size[0];

  s = check_meta(a, &a->amet, 0, a->amet.count, "archive", msg, msg_size);
  if (s != TSR_OK) return s;
  uint64_t next_bind = 0, next_dim = 0, next_var = 0, next_vmeta = 0, next_verd = 0;
  for (uint32_t k = 0; k < a->kern.count; ++k) {
    s = open_kernel(a, k, &next_bind, &next_dim, &next_var, &next_vmeta, &next_verd, msg, msg_size);
    if (s != TSR_OK) return s;
  }
  if (next_bind != a->bind.count || next_dim != a->dims.count || next_var != a->vars.count ||
      next_vmeta != a->vmet.count || next_verd != a->verd.count)
    FAIL(TSR_ERROR_CORRUPT, "index: records not owned by any kernel");
  return TSR_OK;
}
