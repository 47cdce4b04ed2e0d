/* The archive parser: validates header, checksums, table bounds, the kernel
 * table and record ownership of a .tfat file (docs/archive-format.md, format
 * 2.x) at open, and the rest of each kernel's records on its first use
 * (tsr_kernel_check). All input is untrusted; every offset and count goes
 * through tsr_range_ok. */
#include <stdio.h>
#include <stdlib.h>

#include "tsr_internal.h"

static const uint8_t k_magic[8] = {0x89, 'T', 'F', 'A', 'T', '\r', '\n', 0x1a};
#define TSR_MAX_HEADER_SIZE 65536u
/* The compiler that writes this runtime's format, named when refusing an old archive. */
#ifdef TESSERAC_VERSION
#define TSR_REBUILD_WITH "tesserac " TESSERAC_VERSION
#else
#define TSR_REBUILD_WITH "the tesserac of this runtime's release"
#endif

#define FAIL(code, ...) do { tsr_set_message(msg, msg_size, __VA_ARGS__); return (code); } while (0)

const char* tsr_str_at(const struct tsr_archive* a, const uint8_t* ref) {
  return (const char*)a->strs + tsr_le32(ref);
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
  if (bytes != size - 8)
    FAIL(TSR_ERROR_CORRUPT, "section %s: %llu bytes after its %u records", tag,
         (unsigned long long)(size - 8 - bytes), out->count);
  return TSR_OK;
}

/* A range [first, first+count) must start where the previous one ended. */
static int take_range(uint64_t* next, uint32_t first, uint32_t count, uint32_t total) {
  if (first != *next) return 0;
  *next += count;
  return *next <= total;
}

/* At open: the kernel's name (binary search depends on sorted names) and the
 * ranges of records it owns, integer checks only. */
static tsr_status open_kernel(struct tsr_archive* a, uint32_t k, uint64_t* next_bind,
                              uint64_t* next_dim, uint64_t* next_var, uint64_t* next_vmeta,
                              uint64_t* next_verd, char* msg, size_t msg_size) {
  const uint8_t* kr = tsr_rec(&a->kern, k);
  if (!tsr_str_in_bounds(a, kr)) FAIL(TSR_ERROR_CORRUPT, "kernel %u: name is not a valid string reference", k);
  if (tsr_le32(kr + 4) == 0) FAIL(TSR_ERROR_CORRUPT, "kernel %u: empty name", k);
  int order = k > 0 ? strcmp(tsr_str_at(a, tsr_rec(&a->kern, k - 1)), tsr_str_at(a, kr)) : -1;
  const char* problem = order == 0 ? "appears twice" : order > 0 ? "is out of order (names are sorted)" : NULL;
  uint32_t fb = tsr_le32(kr + 32), nb = tsr_le32(kr + 36);
  uint32_t fv = tsr_le32(kr + 40), nv = tsr_le32(kr + 44);
  uint32_t fd = tsr_le32(kr + 48), nd = tsr_le32(kr + 52);
  if (!problem && (!take_range(next_bind, fb, nb, a->bind.count) ||
                   !take_range(next_var, fv, nv, a->vars.count) ||
                   !take_range(next_verd, fd, nd, a->verd.count)))
    problem = "has its binding, variant or verdict range out of place";
  for (uint32_t i = 0; i < nb && !problem; ++i) {
    const uint8_t* br = tsr_rec(&a->bind, fb + i);
    if (!take_range(next_dim, tsr_le32(br + 12), tsr_le32(br + 16), a->dims.count))
      problem = "has a binding whose dim range is out of place";
  }
  for (uint32_t i = 0; i < nv && !problem; ++i) {
    const uint8_t* vr = tsr_rec(&a->vars, fv + i);
    if (!take_range(next_vmeta, tsr_le32(vr + 96), tsr_le32(vr + 100), a->vmet.count))
      problem = "has a variant whose metadata range is out of place";
  }
  if (problem) {
    char name[TSR_QUOTE_SIZE];   /* a C identifier only once checked on first use */
    tsr_quote(name, tsr_str_at(a, kr));
    FAIL(TSR_ERROR_CORRUPT, "kernel '%s' %s", name, problem);
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
  /* Format 1.x holds x86 kernels of kernel ABI v1, whose entry takes no
   * tsr_kernel_context: launching one would call it with the wrong
   * arguments, so an old archive is refused by name, never read. */
  if (a->major == 1)
    FAIL(TSR_ERROR_UNSUPPORTED_VERSION,
         "archive format %u.%u holds kernels of kernel ABI v1, which this runtime (format %u.x, "
         "kernel ABI v%d) cannot launch; rebuild it with " TSR_REBUILD_WITH,
         a->major, a->minor, TSR_MAJOR, TSR_KERNEL_ABI_VERSION);
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
  if (al < 8 || al > (1u << 24) || (al & (al - 1)) != 0 || *index_off != header_size ||
      *index_size % 8 != 0 ||
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

  /* RCPT (receipts) arrived in 2.1 and is optional: a 2.0 archive has none. */
  static const char tags[9][5] = {"STRS", "AMET", "KERN", "BIND", "DIMS", "VARS", "VMET", "VERD", "RCPT"};
  static const uint32_t mins[9] = {0, TSR_META_RECORD, TSR_KERN_RECORD, TSR_BIND_RECORD, TSR_DIMS_RECORD,
                                   TSR_VARS_RECORD, TSR_META_RECORD, TSR_VERD_RECORD, TSR_RCPT_RECORD};
  tsr_table* tables[9] = {NULL, &a->amet, &a->kern, &a->bind, &a->dims, &a->vars, &a->vmet, &a->verd, &a->rcpt};
  const uint8_t* payload[9] = {0};
  uint64_t payload_size[9] = {0};
  const uint8_t* index = a->head + index_off;
  for (uint64_t pos = 0; pos < index_size;) {
    if (index_size - pos < 16) FAIL(TSR_ERROR_CORRUPT, "index: section header at %llu cut short",
                                    (unsigned long long)pos);
    uint64_t size = tsr_le64(index + pos + 8), end;
    if (!tsr_range_ok(pos + 16, size, index_size) || !tsr_add_u64(pos + 16, size, &end))
      FAIL(TSR_ERROR_CORRUPT, "index: section at %llu overruns the index", (unsigned long long)pos);
    for (int t = 0; t < 9; ++t)
      if (memcmp(index + pos, tags[t], 4) == 0) {
        if (payload[t]) FAIL(TSR_ERROR_CORRUPT, "index: duplicate section %s", tags[t]);
        payload[t] = index + pos + 16;
        payload_size[t] = size;
      }
    pos = (end + 7) & ~(uint64_t)7;   /* unknown tags: a newer minor version, skipped */
  }
  for (int t = 0; t < 9; ++t) {
    if (!payload[t] && t < 8) FAIL(TSR_ERROR_CORRUPT, "index: required section %s missing", tags[t]);
    if (payload[t] && t > 0) {
      s = parse_table(payload[t], payload_size[t], mins[t], tables[t], tags[t], msg, msg_size);
      if (s != TSR_OK) return s;
    }
  }
  a->strs = payload[0];
  a->strs_size = payload_size[0];

  s = tsr_check_meta(a, &a->amet, 0, a->amet.count, "archive", msg, msg_size);
  if (s != TSR_OK) return s;
  uint64_t next_bind = 0, next_dim = 0, next_var = 0, next_vmeta = 0, next_verd = 0;
  for (uint32_t k = 0; k < a->kern.count; ++k) {
    s = open_kernel(a, k, &next_bind, &next_dim, &next_var, &next_vmeta, &next_verd, msg, msg_size);
    if (s != TSR_OK) return s;
  }
  if (next_bind != a->bind.count || next_dim != a->dims.count || next_var != a->vars.count ||
      next_vmeta != a->vmet.count || next_verd != a->verd.count)
    FAIL(TSR_ERROR_CORRUPT, "index: records not owned by any kernel");
  /* Receipts name their kernel; sorted by it, so a kernel's receipts are
   * found by binary search (tsr_kernel_receipts). */
  for (uint32_t r = 0, prev = 0; r < a->rcpt.count; ++r) {
    uint32_t k = tsr_le32(tsr_rec(&a->rcpt, r));
    if (k >= a->kern.count || k < prev) FAIL(TSR_ERROR_CORRUPT, "receipt %u has a bad kernel index", r);
    prev = k;
  }
  return TSR_OK;
}

static uint32_t first_receipt_of(const struct tsr_archive* a, size_t k) {
  uint32_t lo = 0, hi = a->rcpt.count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tsr_le32(tsr_rec(&a->rcpt, mid)) < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

uint32_t tsr_kernel_receipts(const struct tsr_archive* a, size_t k, uint32_t* out_first) {
  *out_first = first_receipt_of(a, k);
  return first_receipt_of(a, k + 1) - *out_first;
}
