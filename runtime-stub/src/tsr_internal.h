/* Internal declarations of the runtime stub. The on-disk layout these
 * structures mirror is docs/archive-format.md (format 2.0). */
#ifndef TSR_INTERNAL_H
#define TSR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tesserart.h"

#define TSR_MAJOR 2
#define TSR_MINOR 0
#define TSR_HEADER_SIZE_V1 128u
#define TSR_KERN_RECORD 56u
#define TSR_BIND_RECORD 24u
#define TSR_DIMS_RECORD 16u
#define TSR_VARS_RECORD 112u
#define TSR_META_RECORD 16u
#define TSR_VERD_RECORD 72u

/* ---- little-endian loads and overflow-safe arithmetic -------------------- */
static inline uint16_t tsr_le16(const uint8_t* p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t tsr_le32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t tsr_le64(const uint8_t* p) {
  return (uint64_t)tsr_le32(p) | ((uint64_t)tsr_le32(p + 4) << 32);
}
/* Returns 1 and stores a+b / a*b when it fits in uint64_t, else 0. */
static inline int tsr_add_u64(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }
static inline int tsr_mul_u64(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }
/* 1 when [off, off+len) lies inside [0, limit). */
static inline int tsr_range_ok(uint64_t off, uint64_t len, uint64_t limit) {
  uint64_t end;
  return tsr_add_u64(off, len, &end) && end <= limit;
}

/* ---- parsed archive ------------------------------------------------------ */
typedef struct tsr_str { const char* p; uint32_t len; } tsr_str;

typedef struct tsr_table {
  const uint8_t* base;   /* first record */
  uint32_t record_size;
  uint32_t count;
} tsr_table;

static inline const uint8_t* tsr_rec(const tsr_table* t, uint32_t i) {
  return t->base + (size_t)i * t->record_size;
}

/* Per-variant lazy state: CRC_OK after the first-use check, SHA_OK after the
 * full check (TSR_OPEN_VERIFY_BLOBS, tsr_archive_verify). */
enum { TSR_BLOB_UNCHECKED = 0, TSR_BLOB_CRC_OK = 1, TSR_BLOB_SHA_OK = 2, TSR_BLOB_BAD = 3 };

struct tsr_archive {
  const uint8_t* data;      /* the whole archive; NULL for a file until tsr_map_all */
  const uint8_t* head;      /* header and index: what tsr_parse reads (= data in memory) */
  uint64_t size;            /* file_size from the header */
  uint64_t data_len;        /* bytes available (>= size) */
  void* mapping;            /* mmap'ed or copied region to release, or NULL */
  size_t mapping_size;
  int mapping_is_mmap;
  int fd;                   /* file archives: kept open for reads on first use; else -1 */
  uint8_t* head_copy;       /* file archives: header and index read at open */
  uint8_t** blob_copy;      /* file archives without a mapping: blobs read on first use */
  uint16_t major, minor;
  uint64_t blob_offset;
  uint32_t blob_alignment;
  const uint8_t* strs;
  uint64_t strs_size;
  tsr_table amet, kern, bind, dims, vars, vmet, verd;
  uint8_t* blob_state;      /* one per VARS record */
  /* One TSR_KERNEL_* per KERN record, read and written only with __atomic
   * builtins: const accessors record the first-use check of a kernel here,
   * and concurrent readers of one archive may race to do it. */
  unsigned char* kernel_state;
  char message[256];        /* last failure of a load on this archive */
};

/* Per-kernel lazy state: the records a kernel owns are checked on first use. */
enum { TSR_KERNEL_UNCHECKED = 0, TSR_KERNEL_OK = 1, TSR_KERNEL_BAD = 2 };

/* reader.c: validates header, hashes, table bounds, the kernel table (names),
 * the archive metadata and each kernel's record ranges; fills a (data/size
 * set). The rest of each kernel's records is checked by tsr_kernel_check. */
tsr_status tsr_parse(struct tsr_archive* a, uint64_t data_len, char* msg, size_t msg_size);
/* Reads a string reference already validated (tsr_parse / tsr_kernel_check). */
const char* tsr_str_at(const struct tsr_archive* a, const uint8_t* ref);

/* validate.c: the validator (docs/archive-format.md, "Validity").
 * TSR_OK once kernel k's own records (strings, names, enums, dims, variants,
 * blob ranges within the kernel, metadata, verdicts) follow every rule;
 * TSR_ERROR_CORRUPT with the reason in msg (may be NULL) otherwise. k <
 * kern.count. The result is cached in a->kernel_state; safe to call
 * concurrently. */
tsr_status tsr_kernel_check(const struct tsr_archive* a, size_t k, char* msg, size_t msg_size);
/* Every kernel's check plus the one across kernels (blob ranges in file
 * order without overlap). */
tsr_status tsr_check_all_kernels(const struct tsr_archive* a, char* msg, size_t msg_size);

/* rules.c: the string and metadata rules. */
/* 1 when the reference lies in STRS, NUL-terminated, without an embedded NUL. */
int tsr_str_in_bounds(const struct tsr_archive* a, const uint8_t* ref);
/* NULL for a valid string (in bounds, UTF-8, not an absolute path), else
 * why not, e.g. "is not UTF-8". */
const char* tsr_str_problem(const struct tsr_archive* a, const uint8_t* ref);
int tsr_is_identifier(const char* s);     /* [A-Za-z_][A-Za-z0-9_]* */
int tsr_is_identity(const char* s);       /* 64 lower-case hex digits */
int tsr_is_target_name(const char* s);    /* [A-Za-z0-9_.+-]+ */
/* Key/value records [first, first+count) of t: valid strings, keys
 * non-empty, without '=' or newline, strictly sorted; values without
 * newline. `where` starts the message ("archive", "kernel 'k' variant x86:v3"). */
tsr_status tsr_check_meta(const struct tsr_archive* a, const tsr_table* t, uint32_t first,
                          uint32_t count, const char* where, char* msg, size_t msg_size);
/* An untrusted string for a message: printable ASCII, other bytes as \xNN,
 * cut to fit TSR_QUOTE_SIZE with "...". */
#define TSR_QUOTE_SIZE 72
void tsr_quote(char out[TSR_QUOTE_SIZE], const char* s);
/* status.c: "f32" -> TSR_DTYPE_F32, ...; TSR_DTYPE_INVALID for any other
 * name (storage dtypes only: "i64" is not one). */
tsr_dtype tsr_dtype_from_name(const char* name);

/* sha256.c: the portable path only (tests compare it with SHA-NI and OpenSSL). */
void tsr_sha256_portable(const void* data, size_t size, uint8_t out_digest[32]);
/* crc32c.c: the table path only (tests compare it with SSE4.2). */
uint32_t tsr_crc32c_portable(const void* data, size_t size);

/* archive.c */
/* File archives: maps the whole file (verify and TSR_OPEN_VERIFY_BLOBS scan it all). */
tsr_status tsr_map_all(struct tsr_archive* a);
/* The bytes of blob v (global variant index), read from the file on first
 * use where the archive is not in memory; NULL with a->message set on error. */
const uint8_t* tsr_blob_bytes(struct tsr_archive* a, uint32_t v);
/* CRC-32C of the blob (first use), or its SHA-256 and CRC-32C when full is set. */
tsr_status tsr_blob_check(struct tsr_archive* a, uint32_t global_variant, int full);
void tsr_set_message(char* buf, size_t size, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Accessors on validated records (query.c). */
const uint8_t* tsr_kernel_rec(const struct tsr_archive* a, size_t kernel);
const uint8_t* tsr_variant_rec(const struct tsr_archive* a, size_t kernel, size_t variant,
                               uint32_t* out_global);

/* ---- backends ------------------------------------------------------------ */
/* Loaded code of one variant, owned by a tsr_kernel. */
typedef struct tsr_loaded {
  void* handle;             /* dlopen handle / CUmodule */
  void* function;           /* entry point / CUfunction */
  int backend;              /* TSR_BACKEND_* */
  int fd;                   /* x86: the scratch file, open while the library is loaded */
} tsr_loaded;

enum { TSR_BACKEND_X86 = 1, TSR_BACKEND_CUDA = 2, TSR_BACKEND_HIP = 3, TSR_BACKEND_XRT = 4 };

/* The validated launch as every backend sees it. */
typedef struct tsr_launch_args {
  const tsr_buffer_arg* buffers;
  size_t buffer_count;
  const uint64_t* required_bytes;  /* per buffer, computed from the ABI (CUDA only; NULL for x86) */
  const int64_t* scalars;
  size_t scalar_count;
} tsr_launch_args;

tsr_status tsr_x86_load(const void* blob, size_t size, const char* entry, tsr_loaded* out,
                        char* msg, size_t msg_size);
/* tsr_x86_load with a chosen scratch file: a memfd (the default; falls back
 * to a temporary file where memfd_create fails) or the temporary file. */
enum { TSR_X86_SCRATCH_MEMFD = 0, TSR_X86_SCRATCH_TMPFILE = 1 };
tsr_status tsr_x86_load_with(int scratch, const void* blob, size_t size, const char* entry,
                             tsr_loaded* out, char* msg, size_t msg_size);
tsr_status tsr_x86_launch(const tsr_loaded* l, const tsr_launch_args* args);
void tsr_x86_unload(tsr_loaded* l);

/* CUDA: probe returns TSR_OK and the compute capability (major*10+minor). */
tsr_status tsr_cuda_probe(int* out_cc);
tsr_status tsr_cuda_load(const void* blob, size_t size, int is_ptx, const char* entry,
                         tsr_loaded* out, char* msg, size_t msg_size);
tsr_status tsr_cuda_launch(const tsr_loaded* l, const tsr_launch_args* args,
                           const struct tsr_archive* a, size_t kernel, size_t variant,
                           char* msg, size_t msg_size);
void tsr_cuda_unload(tsr_loaded* l);
/* "x,y,z" of cuda.block / cuda.grid, each INT | NAME | cdiv(INT_OR_NAME,INT)
 * with NAME a runtime scalar of the kernel; 1 when all three are in 1..2^31-1. */
int tsr_cuda_eval_triple(const char* text, const struct tsr_archive* a, size_t kernel,
                         const int64_t* scalars, unsigned out[3]);

tsr_status tsr_hip_probe(char* out_gfx, size_t gfx_size);
tsr_status tsr_xrt_probe(char* out_npu, size_t npu_size);

#endif /* TSR_INTERNAL_H */
