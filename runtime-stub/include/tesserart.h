/* tesserart — the tesserac runtime stub (C11; depends on libc, libdl and libpthread only;
 * vendor libraries only through dlopen). Archive format 2.3.
 *
 * Opens a .tfat fat archive (docs/archive-format.md), selects the best
 * variant of a kernel for this machine, validates each launch against the
 * ABI recorded in the archive and runs it. Every function returns a
 * tsr_status; results come back through out_ parameters. Status numbers and
 * dtype tags are pinned: they never change meaning, new ones are appended.
 *
 * Threading (docs/runtime.md, "Threads"): every call may be made from any
 * number of threads at once on the same or different handles, except that a
 * handle must not be closed or unloaded while another thread uses it. Lazy
 * work (a blob's first-use check and read, a kernel's record check, loading a
 * module on a device, starting the default thread pool, initializing a GPU
 * driver, resolving a route's delegate library) happens exactly once.
 * Strings returned by accessors live as long as the archive;
 * *_last_message strings are per calling thread.
 */
#ifndef TESSERART_H
#define TESSERART_H

#include <stddef.h>
#include <stdint.h>

#include "tesserart_kernel.h" /* tsr_task_fn, tsr_parallel_for_fn: the x86 kernel ABI */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TSR_API __attribute__((visibility("default")))
#else
#define TSR_API
#endif

/* ---- status codes (pinned numbers) ------------------------------------- */
typedef enum tsr_status {
  TSR_OK = 0,
  TSR_ERROR_GENERIC = 1,
  TSR_ERROR_NULL_ARGUMENT = 2,        /* a required pointer (API or buffer data) is NULL */
  TSR_ERROR_INVALID_ARGUMENT = 3,     /* an index out of range, a bad option */
  TSR_ERROR_OUT_OF_MEMORY = 4,
  TSR_ERROR_IO = 5,                   /* open/stat/read/mmap of the archive file failed */
  TSR_ERROR_BAD_MAGIC = 10,           /* not a .tfat archive */
  TSR_ERROR_UNSUPPORTED_VERSION = 11, /* format major version this reader does not know */
  TSR_ERROR_TRUNCATED = 12,           /* the data ends before a region it declares */
  TSR_ERROR_CORRUPT = 13,             /* structurally invalid: bad offset, range, tag, order */
  TSR_ERROR_CHECKSUM = 14,            /* a SHA-256 or CRC-32C (header, index or blob) does not match */
  TSR_ERROR_NOT_FOUND = 20,           /* no kernel / metadata key with that name */
  TSR_ERROR_NO_VARIANT = 21,          /* no variant of the kernel runs on this machine */
  TSR_ERROR_NO_DEVICE = 22,           /* the requested backend has no driver or device */
  TSR_ERROR_NOT_QUALIFIED = 23,       /* policy requires a hardware receipt and no runnable variant has one */
  TSR_ERROR_ARG_COUNT = 30,           /* wrong number of buffers or scalars */
  TSR_ERROR_ROLE_MISMATCH = 31,       /* an input passed where the ABI has an output, or back */
  TSR_ERROR_DTYPE_MISMATCH = 32,      /* buffer dtype tag differs from the ABI */
  TSR_ERROR_BUFFER_TOO_SMALL = 33,    /* buffer bytes < elements(shape, scalars) * dtype size */
  TSR_ERROR_MISALIGNED = 34,          /* buffer data not aligned to its element size */
  TSR_ERROR_INVALID_SCALAR = 35,      /* negative runtime scalar or a size that overflows */
  TSR_ERROR_LOAD_FAILED = 40,         /* dlopen / dlsym / module load of an artifact failed */
  TSR_ERROR_LAUNCH_FAILED = 41,       /* the backend reported an error while running */
  TSR_ERROR_UNSUPPORTED = 42,         /* a variant of a kind this build of the stub has no backend for */
  TSR_ERROR_PROCESS_FATAL = 43,       /* a backend failed after changing process-global state (an xclbin
                                         registered on an NPU): nothing was rolled back; start a fresh process */
  TSR_ERROR_DELEGATE_UNAVAILABLE = 44 /* format 2.3: the route's delegate library or symbol cannot be loaded
                                         and tsr_select_options.delegates = 1 requires it */
} tsr_status;

/* Static, never NULL: "ok", "null argument", ... ("unknown status" otherwise). */
TSR_API const char* tsr_status_string(tsr_status status);

/* ---- dtype tags, roles, artifact kinds (pinned numbers) ------------------ */
typedef enum tsr_dtype {
  TSR_DTYPE_INVALID = 0,
  TSR_DTYPE_F32 = 1,
  TSR_DTYPE_F16 = 2,
  TSR_DTYPE_BF16 = 3,
  TSR_DTYPE_I64 = 4   /* runtime scalars */
} tsr_dtype;

TSR_API size_t tsr_dtype_size(tsr_dtype dtype);       /* 0 for unknown tags */
TSR_API const char* tsr_dtype_name(tsr_dtype dtype);  /* "f32", ...; "?" for unknown */

typedef enum tsr_role { TSR_ROLE_IN = 0, TSR_ROLE_OUT = 1, TSR_ROLE_SCALAR = 2 } tsr_role;

typedef enum tsr_artifact_kind {
  TSR_ARTIFACT_UNKNOWN = 0, /* a kind from a newer minor version: never selected */
  TSR_ARTIFACT_SHARED_OBJECT = 1,
  TSR_ARTIFACT_PTX = 2,
  TSR_ARTIFACT_CUBIN = 3,
  TSR_ARTIFACT_CODE_OBJECT = 4,
  TSR_ARTIFACT_XCLBIN = 5
} tsr_artifact_kind;

typedef enum tsr_verdict {
  TSR_VERDICT_NOT_RUN = 0,
  TSR_VERDICT_PASS = 1,
  TSR_VERDICT_FAIL = 2,
  TSR_VERDICT_PASS_EMULATED = 3 /* format 2.1: passed in the CPU emulator; never a hardware PASS */
} tsr_verdict;

/* ---- SHA-256 (the stub's own; exposed for tests and tools) -------------- */
TSR_API void tsr_sha256(const void* data, size_t size, uint8_t out_digest[32]);
/* CRC-32C (Castagnoli) of data: the fast check of the index at open and of
 * a blob at first use (docs/archive-format.md). SSE4.2 when present. */
TSR_API uint32_t tsr_crc32c(const void* data, size_t size);

/* ---- opening an archive ------------------------------------------------- */
typedef struct tsr_archive tsr_archive;

enum {
  TSR_OPEN_VERIFY_BLOBS = 1u << 0, /* tsr_archive_verify at open (every rule, every blob's SHA-256) */
  TSR_OPEN_COPY = 1u << 1          /* open_memory: copy the bytes (default: borrow them) */
};

typedef struct tsr_open_options {
  uint32_t flags;        /* TSR_OPEN_* */
  char* message;         /* optional: receives a one-line reason when open fails */
  size_t message_size;
} tsr_open_options;

/* Maps the file read-only. options may be NULL. */
TSR_API tsr_status tsr_archive_open_file(const char* path, const tsr_open_options* options,
                                         tsr_archive** out_archive);
/* Without TSR_OPEN_COPY the caller keeps data alive and unchanged until close. */
TSR_API tsr_status tsr_archive_open_memory(const void* data, size_t size,
                                           const tsr_open_options* options,
                                           tsr_archive** out_archive);
TSR_API void tsr_archive_close(tsr_archive* archive); /* NULL is a no-op */

/* The validator: every rule of docs/archive-format.md ("Validity") that open
 * does not check — the index SHA-256 and section layout, every kernel's
 * records (open checks only the kernel table and record ranges; the rest on
 * a kernel's first use), blob order across kernels, zero padding, nothing
 * after file_size, and every blob's SHA-256 and CRC-32C. The first problem
 * goes to message (may be NULL). */
TSR_API tsr_status tsr_archive_verify(tsr_archive* archive, char* message, size_t message_size);

/* One line about the calling thread's last blob-hash, kernel-record (select,
 * blob, load) or load failure on this archive ("" if none). */
TSR_API const char* tsr_archive_last_message(const tsr_archive* archive);

/* ---- introspection ------------------------------------------------------ */
/* An accessor that reads a kernel's own records (bindings, dims, variants,
 * their metadata, verdicts, blobs; also tsr_archive_kernel_at, select and
 * load) first checks them, once per kernel and archive: TSR_ERROR_CORRUPT
 * when they are invalid, from every such accessor of that kernel. The index
 * CRC-32C at open still catches any changed index byte. */
typedef struct tsr_archive_info {
  uint16_t major, minor;
  size_t kernel_count;
  size_t metadata_count;
  uint64_t file_size;
} tsr_archive_info;

TSR_API tsr_status tsr_archive_get_info(const tsr_archive* archive, tsr_archive_info* out_info);
/* Archive-level metadata, sorted by key. */
TSR_API tsr_status tsr_archive_metadata_at(const tsr_archive* archive, size_t index,
                                           const char** out_key, const char** out_value);
TSR_API tsr_status tsr_archive_metadata_find(const tsr_archive* archive, const char* key,
                                             const char** out_value);

typedef struct tsr_kernel_info {
  const char* name;
  const char* identity;   /* 64 lower-case hex digits */
  const char* family;
  const char* dtype;      /* storage dtype name, e.g. "bf16" */
  size_t binding_count;   /* buffers + scalars */
  size_t buffer_count;    /* inputs + outputs */
  size_t scalar_count;
  size_t variant_count;
  size_t verdict_count;
  size_t receipt_count;   /* format 2.1: hardware qualification receipts (RCPT) */
} tsr_kernel_info;

TSR_API tsr_status tsr_archive_kernel_at(const tsr_archive* archive, size_t kernel,
                                         tsr_kernel_info* out_info);
/* Kernels are sorted by name; binary search. */
TSR_API tsr_status tsr_archive_find_kernel(const tsr_archive* archive, const char* name,
                                           size_t* out_kernel);

typedef struct tsr_binding_info {
  const char* name;
  tsr_role role;
  tsr_dtype dtype;        /* TSR_DTYPE_I64 for scalars */
  size_t dim_count;       /* 0 for scalars */
} tsr_binding_info;

/* One extent of a buffer's shape: a static value or a runtime scalar. */
typedef struct tsr_dim_info {
  int is_scalar;
  int64_t value;          /* static extent when !is_scalar */
  size_t scalar_index;    /* position among the kernel's scalars when is_scalar */
  const char* scalar_name;
} tsr_dim_info;

TSR_API tsr_status tsr_kernel_binding_at(const tsr_archive* archive, size_t kernel,
                                         size_t binding, tsr_binding_info* out_info);
TSR_API tsr_status tsr_kernel_dim_at(const tsr_archive* archive, size_t kernel, size_t binding,
                                     size_t dim, tsr_dim_info* out_dim);

typedef struct tsr_variant_info {
  const char* target_kind;   /* "x86", "cuda", "hip", "xdna" */
  const char* arch;          /* "v3", "sm_90", "ptx", "gfx90a", "npu1" */
  tsr_artifact_kind artifact_kind;
  const char* entry;
  const char* key;
  const char* toolchain;
  uint64_t offset, size;     /* blob position in the archive */
  const uint8_t* sha256;     /* 32 bytes */
  size_t metadata_count;
} tsr_variant_info;

TSR_API tsr_status tsr_kernel_variant_at(const tsr_archive* archive, size_t kernel,
                                         size_t variant, tsr_variant_info* out_info);
TSR_API tsr_status tsr_variant_metadata_at(const tsr_archive* archive, size_t kernel,
                                           size_t variant, size_t index, const char** out_key,
                                           const char** out_value);
TSR_API tsr_status tsr_variant_metadata_find(const tsr_archive* archive, size_t kernel,
                                             size_t variant, const char* key,
                                             const char** out_value);
/* The blob bytes, after checking their CRC-32C (once; TSR_ERROR_CHECKSUM on mismatch). */
TSR_API tsr_status tsr_variant_blob(tsr_archive* archive, size_t kernel, size_t variant,
                                    const void** out_data, size_t* out_size);

typedef struct tsr_verdict_info {
  const char* target_kind;
  const char* arch;
  tsr_verdict verdict;
  double max_abs_err, max_rel_err, budget_atol, budget_rtol;
  uint64_t seed;
  const char* reason;
} tsr_verdict_info;

TSR_API tsr_status tsr_kernel_verdict_at(const tsr_archive* archive, size_t kernel,
                                         size_t verdict, tsr_verdict_info* out_info);

/* A hardware qualification receipt bound to a variant (format 2.1, RCPT).
 * The stub does not parse the TOML; `tesserac verify` does. */
typedef struct tsr_receipt_info {
  const char* target_kind;
  const char* arch;
  const uint8_t* artifact_sha256;  /* 32 bytes: the variant's blob hash it binds to */
  const char* bytes;               /* the receipt file, exact bytes */
  size_t size;
} tsr_receipt_info;

TSR_API tsr_status tsr_kernel_receipt_at(const tsr_archive* archive, size_t kernel,
                                         size_t receipt, tsr_receipt_info* out_info);

/* ---- devices and selection ---------------------------------------------- */
/* Highest x86-64 psABI level this CPU and OS support (1..4); 0 on non-x86. */
TSR_API int tsr_x86_level(void);

#define TSR_X86_AMX 0x100   /* or'ed into tsr_select_options.x86_level: CPU+OS have AMX (+ permission, asked) */

typedef struct tsr_select_options {
  const char* target_kind;  /* NULL: any; otherwise only this kind ("x86", ...) */
  int x86_level;            /* 0: detect; otherwise pretend this psABI level (1..4, | TSR_X86_AMX) */
  const char* arch;         /* NULL: the best for this machine; otherwise only this arch ("v3", "sm_90") */
  int device;               /* GPU kinds: the device ordinal to select and load for (0: the first) */
  int require_qualified;    /* 1: only variants with a hardware receipt (TSR_ERROR_NOT_QUALIFIED
                               otherwise); 0: the environment decides (TSR_REQUIRE_QUALIFIED=1);
                               -1: not required, whatever the environment says (qualification
                               itself loads unqualified variants). Either way a qualified variant
                               is preferred over an unqualified one of the same kind. */
  /* Format 2.3 (appended: code built against an older tesserart.h must be
   * recompiled, since this library reads the whole struct). An x86
   * variant's route may call a vendor library (a delegate, see
   * tsr_kernel_route). 0: when a delegate cannot be loaded, fall back to the
   * route's next step (always possible: the variant's own entry ends every
   * route); 1: require it: the launch returns TSR_ERROR_DELEGATE_UNAVAILABLE
   * naming library, callee and the dlopen/dlsym error; -1: never call a
   * delegate (nothing is dlopen'ed). Other values: TSR_ERROR_INVALID_ARGUMENT
   * at load. */
  int delegates;
} tsr_select_options;

typedef struct tsr_selection {
  size_t variant;           /* index within the kernel's variants */
  const char* target_kind;
  const char* arch;
  const char* route;        /* "memfd+dlopen", "cubin", "ptx-jit", ... */
} tsr_selection;

/* Picks without loading anything. Preference across kinds: cuda, hip, xdna,
 * x86; within x86 the highest supported level; within cuda the cubin of the
 * device's compute capability, else PTX whose target the device meets. A GPU
 * driver is initialized only when the kernel has a variant of its kind.
 * options may be NULL. */
TSR_API tsr_status tsr_kernel_select(tsr_archive* archive, size_t kernel,
                                     const tsr_select_options* options,
                                     tsr_selection* out_selection);

/* ---- executor: the threads x86 kernels run on ------------------------- */
/* x86 kernels split their work into tasks and hand them to an executor.
 * libtesserart has a default one: a pthread pool started on the first launch
 * that needs it, with TSR_NUM_THREADS workers (1..1024) when that variable is
 * set, else one per CPU of the process's affinity mask. A parallel_for that
 * finds the pool busy (another thread's launch, or a nested call) runs its
 * tasks on the calling thread. An application with its own pool installs it
 * instead, so that nothing is oversubscribed. */
typedef struct tsr_executor {
  uint32_t worker_count;            /* >= 1: worker indexes passed to tasks lie in [0, worker_count) */
  tsr_parallel_for_fn parallel_for; /* the contract in tesserart_kernel.h; may be called from
                                       several threads at once */
  void* state;                      /* passed to parallel_for */
} tsr_executor;

/* Installs the executor every later x86 launch uses (the struct is copied;
 * state must outlive those launches). NULL restores the default pool.
 * TSR_ERROR_INVALID_ARGUMENT for worker_count 0 or a NULL parallel_for.
 * Launches already running finish on the executor they started with. */
TSR_API tsr_status tsr_set_executor(const tsr_executor* executor);
/* The worker count launches get now: the installed executor's, else the
 * default pool's (which this does not start). */
TSR_API uint32_t tsr_executor_worker_count(void);

/* ---- loading and launching ---------------------------------------------- */
typedef struct tsr_kernel tsr_kernel;

/* One host buffer argument. bytes is the size of the memory at data; it must
 * cover elements(shape) * tsr_dtype_size(dtype). data may be NULL only when
 * that size is 0. */
typedef struct tsr_buffer_arg {
  void* data;
  size_t bytes;
  tsr_dtype dtype;
  tsr_role role;            /* TSR_ROLE_IN or TSR_ROLE_OUT, as recorded in the ABI */
} tsr_buffer_arg;

/* Selects the best variant (as tsr_kernel_select), checks its blob hash and
 * loads it (for GPU kinds: on options->device). The kernel borrows the
 * archive: unload it before closing the archive. Kernels loaded at once are
 * independent, whatever their kernel or tier (an x86 kernel holds one file
 * descriptor until it is unloaded). */
TSR_API tsr_status tsr_kernel_load(tsr_archive* archive, const char* name,
                                   const tsr_select_options* options, tsr_kernel** out_kernel);
TSR_API void tsr_kernel_unload(tsr_kernel* kernel); /* NULL is a no-op */
TSR_API tsr_status tsr_kernel_selection(const tsr_kernel* kernel, tsr_selection* out_selection);

/* Launch with host pointers. Validates buffers (in ABI order: inputs then
 * outputs) and scalars (ABI order) against the recorded ABI, in this order:
 * NULL arrays (NULL_ARGUMENT), counts (ARG_COUNT), roles (ROLE_MISMATCH),
 * dtype tags (DTYPE_MISMATCH), negative or overflowing scalars
 * (INVALID_SCALAR), byte sizes (BUFFER_TOO_SMALL), NULL data of a buffer
 * that needs bytes (NULL_ARGUMENT), alignment of data to the element size
 * (MISALIGNED). Nothing runs unless all pass. An empty problem (every output
 * has zero elements) then returns TSR_OK without running anything.
 * x86 kernels run on the executor, synchronously. GPU kernels: this is the
 * COPYING convenience call: it allocates device memory on the kernel's
 * device, copies inputs in, launches on the default stream, synchronizes and
 * copies outputs back; real applications use tsr_kernel_launch_device.
 * A failed load of the selected variant is reported, never silently replaced.
 * out_selection (may be NULL) reports the variant and route that ran. */
TSR_API tsr_status tsr_kernel_launch(tsr_kernel* kernel, const tsr_buffer_arg* buffers,
                                     size_t buffer_count, const int64_t* scalars,
                                     size_t scalar_count, tsr_selection* out_selection);

/* One device buffer argument: a device address (a CUdeviceptr for CUDA) on
 * the launch's device, passed to the kernel unchanged. ptr may be 0 only
 * when the buffer needs zero bytes. */
typedef struct tsr_device_buffer {
  uint64_t ptr;
  size_t bytes;
  tsr_dtype dtype;
  tsr_role role;
} tsr_device_buffer;

/* Launch of a GPU kernel on device memory: asynchronous on `stream` (a
 * CUstream for CUDA; NULL: the legacy default stream) of device ordinal
 * `device`, with no copy and no synchronization; the caller synchronizes the
 * stream before reading outputs. The kernel's module is loaded on that
 * device on first use (the variant is selected for that device's
 * capability). Validation as tsr_kernel_launch, on ptr instead of data.
 * An x86 kernel returns TSR_ERROR_INVALID_ARGUMENT (use tsr_kernel_launch). */
TSR_API tsr_status tsr_kernel_launch_device(tsr_kernel* kernel, int device, void* stream,
                                            const tsr_device_buffer* buffers,
                                            size_t buffer_count, const int64_t* scalars,
                                            size_t scalar_count);

/* Routes and delegates (format 2.3; docs/runtime.md, "Routes and delegates").
 * An x86 variant may carry a route: buckets of one runtime scalar, each an
 * ordered list of steps, `entry:<symbol>` (an entry of the variant's shared
 * object, valid for the bucket's shapes) or `delegate:<callee>` (a vendor
 * library's function, e.g. cblas_sgemm from OpenBLAS or dnnl_sgemm from
 * oneDNN, loaded with dlopen on first use, once per kernel; only from the
 * directory in the environment variable TSR_DELEGATE_DIR when that is set
 * and not empty). A launch runs the first usable step of its bucket,
 * else the variant's VARS entry. This reports in *out_step the step a
 * launch with these scalars runs now ("delegate:cblas_sgemm",
 * "entry:mm_tsr_entry_t1"), resolving delegates as that launch would:
 * TSR_ERROR_DELEGATE_UNAVAILABLE under tsr_select_options.delegates = 1.
 * Scalars are checked as by tsr_kernel_launch (ARG_COUNT, NULL_ARGUMENT,
 * INVALID_SCALAR). Other kinds have no routes: "entry:<their entry>". The
 * string lives as long as the kernel. */
TSR_API tsr_status tsr_kernel_route(tsr_kernel* kernel, const int64_t* scalars, size_t scalar_count,
                                    const char** out_step);

/* One line about the calling thread's last failure of load or launch on this
 * kernel ("" if none). */
TSR_API const char* tsr_kernel_last_message(const tsr_kernel* kernel);

#ifdef __cplusplus
}
#endif

#endif /* TESSERART_H */
