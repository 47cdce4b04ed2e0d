/* libFuzzer target for the runtime stub's archive reader (reader.c,
 * archive.c, query.c, select.c). Each input is tried twice: as given (the
 * checksums reject most mutations early) and with the header SHA-256 and the
 * index CRC-32C and SHA-256 recomputed, so mutations reach the structural
 * checks behind them (blob checksums are left alone: both outcomes of the
 * blob checks get exercised). A kernel's own records are checked on first
 * use, so an opened archive may hold kernels whose accessors all report
 * TSR_ERROR_CORRUPT; verify must then fail too. An archive verify accepts
 * must satisfy the format's rules as restated here independently of the
 * validator (check_verified), and every refusal must carry a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tesserart.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static volatile size_t g_sink;

static void touch(const char* s) {
  if (s) g_sink += strlen(s);
}

/* Independent restatements of rules the validator enforces
 * (docs/archive-format.md): an archive verify accepts must satisfy them. */
static int is_identifier(const char* s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return 0;
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

static int is_hex64(const char* s) {
  size_t n = strlen(s);
  if (n != 64) return 0;
  for (size_t i = 0; i < n; ++i)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
  return 1;
}

static void check_meta_pair(const char* key, const char* value) {
  if (!*key || strchr(key, '=') || strchr(key, '\n') || strchr(value, '\n') || key[0] == '/' || value[0] == '/')
    abort();
}

static void check_verified(tsr_archive* a) {
  tsr_archive_info info;
  if (tsr_archive_get_info(a, &info) != TSR_OK) abort();
  for (size_t i = 0; i < info.metadata_count; ++i) {
    const char *key, *value;
    if (tsr_archive_metadata_at(a, i, &key, &value) != TSR_OK) abort();
    check_meta_pair(key, value);
  }
  for (size_t k = 0; k < info.kernel_count; ++k) {
    tsr_kernel_info ki;
    if (tsr_archive_kernel_at(a, k, &ki) != TSR_OK) abort();
    if (!is_identifier(ki.name) || !is_hex64(ki.identity)) abort();
    if (strcmp(ki.dtype, "f32") != 0 && strcmp(ki.dtype, "f16") != 0 && strcmp(ki.dtype, "bf16") != 0) abort();
    for (size_t b = 0; b < ki.binding_count; ++b) {
      tsr_binding_info bi, other;
      if (tsr_kernel_binding_at(a, k, b, &bi) != TSR_OK || !is_identifier(bi.name)) abort();
      for (size_t c = 0; c < b; ++c)
        if (tsr_kernel_binding_at(a, k, c, &other) != TSR_OK || strcmp(other.name, bi.name) == 0) abort();
    }
    for (size_t v = 0; v < ki.variant_count; ++v) {
      tsr_variant_info vi;
      if (tsr_kernel_variant_at(a, k, v, &vi) != TSR_OK || !*vi.target_kind || !*vi.arch) abort();
      for (size_t m = 0; m < vi.metadata_count; ++m) {
        const char *key, *value;
        if (tsr_variant_metadata_at(a, k, v, m, &key, &value) != TSR_OK) abort();
        check_meta_pair(key, value);
      }
      /* Verified blobs pass their first-use check. */
      const void* blob;
      size_t blob_size;
      if (tsr_variant_blob(a, k, v, &blob, &blob_size) != TSR_OK) abort();
    }
    /* Receipts (2.1): each binds to a variant of its kernel with the same
     * kind:arch and blob SHA-256; bytes of bounded size, NUL after them. */
    for (size_t r = 0; r < ki.receipt_count; ++r) {
      tsr_receipt_info ri;
      if (tsr_kernel_receipt_at(a, k, r, &ri) != TSR_OK || ri.size == 0 || ri.size > 65536 || ri.bytes[ri.size])
        abort();
      int bound = 0;
      for (size_t v = 0; v < ki.variant_count && !bound; ++v) {
        tsr_variant_info vi;
        if (tsr_kernel_variant_at(a, k, v, &vi) != TSR_OK) abort();
        bound = strcmp(vi.target_kind, ri.target_kind) == 0 && strcmp(vi.arch, ri.arch) == 0 &&
                memcmp(vi.sha256, ri.artifact_sha256, 32) == 0;
      }
      if (!bound) abort();
    }
  }
}

static void walk(tsr_archive* a) {
  int bad_kernel = 0;
  tsr_archive_info info;
  if (tsr_archive_get_info(a, &info) != TSR_OK) abort();
  for (size_t i = 0; i < info.metadata_count; ++i) {
    const char *k, *v;
    if (tsr_archive_metadata_at(a, i, &k, &v) != TSR_OK) abort();
    touch(k);
    touch(v);
    if (tsr_archive_metadata_find(a, k, &v) != TSR_OK) abort();
  }
  for (size_t k = 0; k < info.kernel_count; ++k) {
    tsr_kernel_info ki;
    tsr_status ks = tsr_archive_kernel_at(a, k, &ki);
    if (ks == TSR_ERROR_CORRUPT) {
      /* Open checks a kernel's own records on first use: once bad, every
       * accessor of that kernel says so, and none reads its records. */
      tsr_binding_info bi;
      tsr_variant_info vi;
      tsr_verdict_info di;
      tsr_receipt_info ri;
      const char *key, *value;
      const void* blob;
      size_t blob_size;
      tsr_select_options opt = {"x86", 4};
      tsr_selection sel;
      if (tsr_archive_kernel_at(a, k, &ki) != TSR_ERROR_CORRUPT ||
          tsr_kernel_binding_at(a, k, 0, &bi) != TSR_ERROR_CORRUPT ||
          tsr_kernel_variant_at(a, k, 0, &vi) != TSR_ERROR_CORRUPT ||
          tsr_variant_metadata_at(a, k, 0, 0, &key, &value) != TSR_ERROR_CORRUPT ||
          tsr_kernel_verdict_at(a, k, 0, &di) != TSR_ERROR_CORRUPT ||
          tsr_kernel_receipt_at(a, k, 0, &ri) != TSR_ERROR_CORRUPT ||
          tsr_variant_blob(a, k, 0, &blob, &blob_size) != TSR_ERROR_CORRUPT ||
          tsr_kernel_select(a, k, &opt, &sel) != TSR_ERROR_CORRUPT)
        abort();
      touch(tsr_archive_last_message(a));
      bad_kernel = 1;
      continue;
    }
    if (ks != TSR_OK) abort();
    touch(ki.name);
    touch(ki.identity);
    size_t found;
    if (tsr_archive_find_kernel(a, ki.name, &found) != TSR_OK || found != k) abort();
    for (size_t b = 0; b < ki.binding_count; ++b) {
      tsr_binding_info bi;
      if (tsr_kernel_binding_at(a, k, b, &bi) != TSR_OK) abort();
      touch(bi.name);
      for (size_t d = 0; d < bi.dim_count; ++d) {
        tsr_dim_info di;
        if (tsr_kernel_dim_at(a, k, b, d, &di) != TSR_OK) abort();
        touch(di.scalar_name);
      }
    }
    for (size_t v = 0; v < ki.variant_count; ++v) {
      tsr_variant_info vi;
      if (tsr_kernel_variant_at(a, k, v, &vi) != TSR_OK) abort();
      touch(vi.arch);
      touch(vi.entry);
      for (size_t m = 0; m < vi.metadata_count; ++m) {
        const char *key, *value;
        if (tsr_variant_metadata_at(a, k, v, m, &key, &value) != TSR_OK) abort();
        touch(value);
      }
      const void* blob;
      size_t blob_size;
      if (tsr_variant_blob(a, k, v, &blob, &blob_size) == TSR_OK && blob_size)
        g_sink += ((const uint8_t*)blob)[blob_size - 1];
    }
    for (size_t v = 0; v < ki.verdict_count; ++v) {
      tsr_verdict_info di;
      if (tsr_kernel_verdict_at(a, k, v, &di) != TSR_OK) abort();
      touch(di.reason);
    }
    for (size_t r = 0; r < ki.receipt_count; ++r) {
      tsr_receipt_info ri;
      if (tsr_kernel_receipt_at(a, k, r, &ri) != TSR_OK) abort();
      touch(ri.bytes);
    }
    /* Selection without loading: x86 only, so no driver is dlopen'ed; with
     * the receipt policy required too. */
    tsr_select_options opt = {"x86", 4};
    tsr_selection sel;
    if (tsr_kernel_select(a, k, &opt, &sel) == TSR_OK) touch(sel.arch);
    opt.require_qualified = 1;
    if (tsr_kernel_select(a, k, &opt, &sel) == TSR_OK) touch(sel.arch);
  }
  char msg[256];
  tsr_status vs = tsr_archive_verify(a, msg, sizeof msg);
  if (bad_kernel && vs == TSR_OK) abort();   /* verify checks every kernel */
  if (vs == TSR_OK) check_verified(a);
  else if (msg[0] == 0) abort();            /* every refusal says why */
}

static void try_open(const uint8_t* data, size_t size) {
  char msg[256];
  tsr_open_options options = {0, msg, sizeof msg};
  tsr_archive* a = NULL;
  if (tsr_archive_open_memory(data, size, &options, &a) == TSR_OK) {
    walk(a);
    tsr_archive_close(a);
  } else if (a != NULL) {
    abort();
  }
}

static uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try_open(data, size);
  if (size < 128) return 0;
  uint8_t* copy = (uint8_t*)malloc(size);
  if (!copy) return 0;
  memcpy(copy, data, size);
  uint32_t header_size = (uint32_t)copy[12] | (uint32_t)copy[13] << 8 | (uint32_t)copy[14] << 16 |
                         (uint32_t)copy[15] << 24;
  uint64_t index_off = le64(copy + 24), index_size = le64(copy + 32);
  if (index_off <= size && index_size <= size - index_off) {
    tsr_sha256(copy + index_off, (size_t)index_size, copy + 64);
    uint32_t crc = tsr_crc32c(copy + index_off, (size_t)index_size);
    for (int i = 0; i < 4; ++i) copy[52 + i] = (uint8_t)(crc >> (8 * i));
  }
  if (header_size >= 128 && header_size <= size) {
    memset(copy + 96, 0, 32);
    uint8_t digest[32];
    tsr_sha256(copy, header_size, digest);
    memcpy(copy + 96, digest, 32);
  }
  try_open(copy, size);
  free(copy);
  return 0;
}
