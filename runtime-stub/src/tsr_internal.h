/* Internal declarations of the runtime stub. The on-disk layout these
 * structures mirror is docs/archive-format.md (format 2.3). */
#ifndef TSR_INTERNAL_H
#define TSR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <string.h>

#include "tesserart.h"
#include "tesserart_compiler.h"
#include "tsr_workspace.h"

#define TSR_MAJOR 2
#define TSR_MINOR 3
#define TSR_HEADER_SIZE_V1 128u
#define TSR_KERN_RECORD 56u
#define TSR_BIND_RECORD 24u
#define TSR_DIMS_RECORD 16u
#define TSR_VARS_RECORD 112u
#define TSR_META_RECORD 16u
#define TSR_VERD_RECORD 72u
#define TSR_RCPT_RECORD 64u            /* format 2.1; the section is optional (2.0 has none) */
#define TSR_RECEIPT_MAX_SIZE 65536u    /* a receipt's bytes: 1..this many */

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

/* How often each kind of lazy work ran on one archive (tsr_archive_lazy_counts). */
typedef struct tsr_lazy_counts {
  uint32_t kernel_checks;   /* tsr_kernel_check running a kernel's record checks */
  uint32_t blob_checks;     /* a blob's CRC-32C (first use) or SHA-256 and CRC-32C (verify) */
  uint32_t blob_reads;      /* a blob read from the file with pread (file archives, unmapped) */
} tsr_lazy_counts;

struct tsr_archive {
  /* The whole archive; NULL for a file until tsr_map_all. Set at open for
   * memory archives, else once under lock; read only under lock or through
   * the pointer tsr_map_all returns. */
  const uint8_t* data;
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
  tsr_table amet, kern, bind, dims, vars, vmet, verd, rcpt;   /* rcpt: count 0 without RCPT */
  uint8_t* blob_state;      /* one per VARS record; under lock */
  /* One TSR_KERNEL_* per KERN record. Read with an __atomic acquire load
   * (the checked fast path of every accessor); the check itself runs and
   * stores its result under lock, so it runs once however many threads
   * race to a kernel's first use. */
  unsigned char* kernel_state;
  /* Guards the lazy work on this archive: blob reads and checks
   * (blob_copy, blob_state), kernel checks, and data/mapping in
   * tsr_map_all. */
  pthread_mutex_t lock;
  tsr_lazy_counts lazy;      /* under lock */
  uint64_t message_id;       /* this archive's key in the thread-local messages */
};

/* Per-kernel lazy state: the records a kernel owns are checked on first use. */
enum { TSR_KERNEL_UNCHECKED = 0, TSR_KERNEL_OK = 1, TSR_KERNEL_BAD = 2 };

/* reader.c: validates header, hashes, table bounds, the kernel table (names),
 * the archive metadata and each kernel's record ranges; fills a (data/size
 * set). The rest of each kernel's records is checked by tsr_kernel_check. */
tsr_status tsr_parse(struct tsr_archive* a, uint64_t data_len, char* msg, size_t msg_size);
/* Kernel k's receipts: their count, and the first one's RCPT index in
 * *out_first (records are sorted by kernel index, checked at open). */
uint32_t tsr_kernel_receipts(const struct tsr_archive* a, size_t k, uint32_t* out_first);
/* 1 when variant record vr of kernel k has a receipt bound to it: same
 * kind:arch and the same blob SHA-256. */
int tsr_variant_qualified(const struct tsr_archive* a, size_t k, const uint8_t* vr);
/* Reads a string reference already validated (tsr_parse / tsr_kernel_check). */
const char* tsr_str_at(const struct tsr_archive* a, const uint8_t* ref);

/* validate.c: the validator (docs/archive-format.md, "Validity").
 * TSR_OK once kernel k's own records (strings, names, enums, dims, variants,
 * blob ranges within the kernel, metadata, verdicts) follow every rule;
 * TSR_ERROR_CORRUPT with the reason in msg (may be NULL) otherwise. k <
 * kern.count. Safe to call concurrently: the check runs under a->lock, once
 * per kernel (again only to give a bad kernel's reason), and its result is
 * cached in a->kernel_state. */
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
/* File archives: maps the whole file (verify and TSR_OPEN_VERIFY_BLOBS scan
 * it all). Thread-safe (a->lock); *out_data receives the whole archive. */
tsr_status tsr_map_all(struct tsr_archive* a, const uint8_t** out_data);
/* The lazy work done on a so far (a snapshot, under a->lock): tests prove
 * with it that concurrent first uses check a kernel or a blob once. */
void tsr_archive_lazy_counts(const struct tsr_archive* a, tsr_lazy_counts* out);
/* CRC-32C of blob v (global variant index) on first use, or its SHA-256 and
 * CRC-32C when full is set; out_bytes (may be NULL) receives the blob, read
 * from the file on first use where the archive is not in memory. Thread-safe
 * (a->lock); the archive's thread-local message says why on failure. */
tsr_status tsr_blob_check(struct tsr_archive* a, uint32_t global_variant, int full,
                          const uint8_t** out_bytes);
void tsr_set_message(char* buf, size_t size, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Accessors on validated records (query.c). */
const uint8_t* tsr_kernel_rec(const struct tsr_archive* a, size_t kernel);
const uint8_t* tsr_variant_rec(const struct tsr_archive* a, size_t kernel, size_t variant,
                               uint32_t* out_global);

/* ---- thread-local messages ----------------------------------------------- */
/* The calling thread's last message about an archive or a kernel: written
 * by failing calls, read by tsr_*_last_message. Per thread, so concurrent
 * calls never write one buffer. One slot per kind of owner; taking a slot
 * for another owner clears it. An owner is named by its message_id, unique
 * in the process (never its address: a new archive or kernel at the address
 * of a closed one must not inherit that one's message). TSR_MSG(slot,
 * owner) expands to the (buffer, size) pair tsr_set_message takes, for a
 * struct tsr_archive* or struct tsr_kernel* owner. */
enum { TSR_MSG_ARCHIVE = 0, TSR_MSG_KERNEL = 1 };
#define TSR_MESSAGE_SIZE 256
uint64_t tsr_message_new_owner(void);                        /* a fresh message_id, never 0 */
char* tsr_message_slot(int slot, uint64_t owner_id);         /* takes the slot, returns its buffer */
const char* tsr_message_text(int slot, uint64_t owner_id);   /* "" unless the slot is owner_id's */
#define TSR_MSG(slot, owner) tsr_message_slot((slot), (owner)->message_id), TSR_MESSAGE_SIZE

/* ---- kernels and backends ------------------------------------------------- */
/* One buffer binding, cached at load so a launch reads no archive record. */
typedef struct tsr_buffer_abi {
  const char* name;
  tsr_dtype dtype;
  tsr_role role;
  uint32_t dim_first;       /* into tsr_kernel.dims */
  uint32_t dim_count;
} tsr_buffer_abi;

/* One extent: static (scalar < 0) or runtime scalar number `scalar`. */
typedef struct tsr_dim_abi {
  int64_t value;
  int32_t scalar;
} tsr_dim_abi;

struct tsr_backend;

struct tsr_kernel {
  tsr_archive* archive;
  uint64_t message_id;              /* this kernel's key in the thread-local messages */
  size_t index;                     /* kernel index in the archive */
  tsr_kernel_info info;
  tsr_selection selection;          /* as selected at load (options->device for GPU kinds) */
  tsr_select_options options;       /* what load was given (target_kind/arch point into the archive
                                       or are NULL); GPU backends reselect per device with them */
  const struct tsr_backend* backend;
  void* backend_state;              /* owned by the backend: load creates, unload frees */
  tsr_buffer_abi* buffers;          /* info.buffer_count */
  tsr_dim_abi* dims;
  char* entry_step;                 /* "entry:<VARS entry>": tsr_kernel_route of non-x86 kinds */
};

/* A launch that passed validation, as a backend sees it. Exactly one of
 * host / device is set. */
typedef struct tsr_launch_args {
  size_t buffer_count;
  size_t scalar_count;
  void* const* host;                /* tsr_kernel_launch: data pointers in ABI order */
  const uint64_t* device;           /* tsr_kernel_launch_device: device addresses in ABI order */
  const uint64_t* required_bytes;   /* per buffer: elements(shape) * dtype size */
  const int64_t* scalars;
  int device_ordinal;               /* device launches */
  void* stream;                     /* device launches; NULL: the default stream */
} tsr_launch_args;

/* One target kind in the stub. Adding a target is one file defining one of
 * these and one row in backends.c (docs/adding-a-target.md). */
typedef struct tsr_backend {
  const char* kind;                 /* the variants' target_kind: "x86", "cuda", ... */
  const char* launch_name;          /* for messages: "tsr_kernel_launch", ... */
  int takes_device_pointers;        /* 1: tsr_kernel_launch_device is this kind's launch */
  /* Best variant of `kernel` of this kind for this machine (options->device
   * for GPUs), without loading. Called only when the kernel has a variant of
   * this kind, so a driver is initialized only then. TSR_ERROR_NO_DEVICE: no
   * driver or device; TSR_ERROR_NO_VARIANT: none fits. */
  tsr_status (*select)(const tsr_archive* a, size_t kernel, const tsr_select_options* options,
                       size_t* out_variant, const char** out_route);
  /* Loads k->selection's variant (blob checked) into k->backend_state. */
  tsr_status (*load)(struct tsr_kernel* k, const void* blob, size_t size,
                     const tsr_variant_info* variant, char* msg, size_t msg_size);
  /* Runs a validated, non-empty launch. Safe to call from many threads. */
  tsr_status (*launch)(struct tsr_kernel* k, const tsr_launch_args* args, char* msg,
                       size_t msg_size);
  void (*unload)(struct tsr_kernel* k);
} tsr_backend;

/* backends.c: every backend, in selection preference order (cuda, hip, xdna, x86). */
extern const tsr_backend* const tsr_backends[];
extern const size_t tsr_backend_count;
const tsr_backend* tsr_backend_for_kind(const char* kind);  /* NULL if unknown */
/* 1 when kernel k has a variant whose target_kind is `kind`. */
int tsr_kernel_has_kind(const struct tsr_archive* a, size_t k, const char* kind);
/* select.c: whether options (may be NULL) allow this kind; whether they
 * allow variant v of `kernel` with this arch. Backends see
 * require_qualified set only while tsr_backend_select asks for qualified
 * variants; they then skip a variant without a receipt bound to it. */
int tsr_select_wants_kind(const tsr_select_options* o, const char* kind);
int tsr_select_wants_variant(const tsr_select_options* o, const struct tsr_archive* a, size_t kernel,
                             size_t v, const char* arch);
/* Backend b's choice under the receipt policy (docs/runtime.md): its best
 * qualified variant, else its best variant at all unless the policy
 * (o->require_qualified, or TSR_REQUIRE_QUALIFIED=1) requires a receipt:
 * then TSR_ERROR_NOT_QUALIFIED, with *out_variant the variant refused. */
tsr_status tsr_backend_select(const tsr_backend* b, const struct tsr_archive* a, size_t kernel,
                              const tsr_select_options* o, size_t* out_variant, const char** out_route);

/* Which backends this build of the stub has (CMake: TESSERAC_STUB_CUDA,
 * _HIP, _XRT); one built out is backend_absent.c's stand-in. */
#ifndef TSR_STUB_CUDA
#define TSR_STUB_CUDA 1
#endif
#ifndef TSR_STUB_HIP
#define TSR_STUB_HIP 1
#endif
#ifndef TSR_STUB_XRT
#define TSR_STUB_XRT 1
#endif

extern const tsr_backend tsr_backend_x86;
extern const tsr_backend tsr_backend_xdna;
/* cuda and hip: the .backend of tsr_gpu_cuda and tsr_gpu_hip (tsr_gpu.h). */

/* x86 (backend_x86.c): one loaded shared object (x86 kernel ABI v2,
 * tesserart_kernel.h) and the workspace its launches reuse. Loading with a
 * chosen scratch file: a memfd (the default; falls back to a temporary file
 * where memfd_create fails) or the temporary file; tests reach the fallback here. */
typedef struct tsr_x86_loaded {
  void* handle;             /* dlopen handle */
  void* function;           /* the entry E */
  void* workspace_size;     /* E_workspace */
  int fd;                   /* the scratch file, open while the library is loaded */
  tsr_workspace_pool workspace;
  struct tsr_x86_route* route;  /* format 2.3 route and delegates (tsr_route.h); x86_load sets it */
} tsr_x86_loaded;
enum { TSR_X86_SCRATCH_MEMFD = 0, TSR_X86_SCRATCH_TMPFILE = 1 };
tsr_status tsr_x86_load_with(int scratch, const void* blob, size_t size, const char* entry,
                             tsr_x86_loaded* out, char* msg, size_t msg_size);
/* Runs the loaded entry on host pointers and scalars: the current executor,
 * workspace from l's pool. TSR_ERROR_OUT_OF_MEMORY when none can be had. */
tsr_status tsr_x86_call(tsr_x86_loaded* l, void* const* buffers, const int64_t* scalars, char* msg,
                        size_t msg_size);
/* The same for another entry of l's library (a route's entry:<symbol> step). */
tsr_status tsr_x86_call_entry(tsr_x86_loaded* l, void* function, void* workspace_size, void* const* buffers,
                              const int64_t* scalars, char* msg, size_t msg_size);
void tsr_x86_unload_loaded(tsr_x86_loaded* l);

/* ---- CUDA (backend_cuda*.c; docs/runtime.md, "GPU launch") -------------
 * The one CUDA driver loader of the project: the compiler's device
 * discovery (tesserac targets, Target::device) and the device checks call
 * these (tesserart_compiler.h) instead of loading the driver themselves.
 * Each call initializes the driver on first use (thread-safe, once). */
/* TSR_OK and the compute capability (major*10+minor) of device ordinal
 * `device`; TSR_ERROR_NO_DEVICE without a driver or such a device. */
tsr_status tsr_cuda_probe(int device, int* out_cc);
/* dlsym in the loaded driver (NULL without one): what the device checks use
 * for events, streams and device memory, so they share the stub's driver. */
void* tsr_cuda_driver_symbol(const char* name);
/* Tests only (tests/support/cuda_driver_double): makes the next driver use
 * load `path` (NULL: libcuda.so.1 again) instead of the driver loaded so
 * far, which is released. Only while no CUDA kernel is loaded and no other
 * thread is in the stub. */
void tsr_cuda_use_driver_for_tests(const char* path);
/* Decimal digits only (n of them, n >= 1), at most INT64_MAX: 1 and *out, else 0. */
int tsr_cuda_parse_int(const char* s, size_t n, int64_t* out);
/* tsr_cuda_eval_triple, the geometry evaluator: tesserart_compiler.h. */

/* ---- HIP (backend_hip*.c; docs/targets-hip.md) -------------------------
 * The one HIP runtime loader of the project, as for CUDA above: the
 * compiler's device discovery calls these (tesserart_compiler.h). Each
 * initializes the runtime on first use (thread-safe, once). */
/* dlsym in the loaded runtime (NULL without one): events and streams for device checks. */
void* tsr_hip_runtime_symbol(const char* name);
/* Tests only (tests/support/hip_runtime_double): the next use loads `path`
 * (NULL: libamdhip64 again); as tsr_cuda_use_driver_for_tests. */
void tsr_hip_use_runtime_for_tests(const char* path);
/* XRT (backend_xrt*.c): tsr_xrt_probe is in tesserart_compiler.h. */
/* Tests only (tests/support/xrt_double): the next XRT use loads `path`
 * (NULL: libxrt_coreutil.so.2 and the real NPU again) standing for an NPU
 * of `arch`. Only while no xdna kernel is loaded and no other thread is in the stub. */
void tsr_xrt_use_library_for_tests(const char* path, const char* arch);

#endif /* TSR_INTERNAL_H */
