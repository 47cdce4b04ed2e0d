/* Routes and delegates of x86 variants (format 2.3; docs/runtime.md, "Routes
 * and delegates"; docs/archive-format.md, VMET). route_x86.c parses the
 * route.* keys at load and picks a launch's step; delegate_x86.c parses the
 * delegate.* keys, resolves a vendor library on first use and calls it. */
#ifndef TSR_ROUTE_H
#define TSR_ROUTE_H

#include "tsr_internal.h"

/* Calling conventions the stub knows (delegate.<callee>.convention). */
enum { TSR_CONV_CBLAS_SGEMM = 1, TSR_CONV_DNNL_SGEMM = 2 };
/* A delegate's resolution state: read with __atomic acquire, written under
 * the route's lock, once. */
enum { TSR_DELEGATE_UNRESOLVED = 0, TSR_DELEGATE_READY = 1, TSR_DELEGATE_UNAVAILABLE = 2 };

/* One delegate named by a route: C = alpha * op(A) * op(B), f32, beta 0. */
typedef struct tsr_delegate {
  char* step;                  /* "delegate:<callee>"; callee = step + 9 */
  char* libraries;             /* delegate.<callee>.library: sonames, space-separated */
  int convention;              /* TSR_CONV_* */
  uint32_t a, b, c;            /* buffer indexes of the operands */
  int a_col, b_col;            /* 1: stored column-major (transposed) */
  tsr_dim_abi m, n, k;         /* a runtime scalar (scalar >= 0) or a literal */
  float alpha;
  int state;                   /* TSR_DELEGATE_*, __atomic */
  void* handle;                /* the library, open while the kernel is loaded */
  void* function;
  char why[TSR_MESSAGE_SIZE];  /* UNAVAILABLE: library, callee and the dlopen/dlsym error */
} tsr_delegate;

/* One step of a bucket: an entry of the blob or a delegate. */
typedef struct tsr_route_step {
  char* text;                  /* "entry:<symbol>"; a delegate's step is delegate->step */
  void* function;              /* entry steps: <symbol> and <symbol>_workspace */
  void* workspace_size;
  tsr_delegate* delegate;      /* delegate steps */
} tsr_route_step;

typedef struct tsr_x86_route {
  int32_t dim;                 /* the scalar the buckets split on; -1: one bucket */
  size_t bucket_count;
  int64_t* bounds;             /* bucket_count - 1, strictly ascending, > 0 */
  size_t* first;               /* bucket i's steps: [first[i], first[i+1]) */
  tsr_route_step* steps;
  size_t step_capacity;        /* steps allocated (freed up to here) */
  tsr_route_step fallback;     /* the VARS entry: after every bucket's steps */
  tsr_delegate* delegates;
  size_t delegate_count;
  int policy;                  /* tsr_select_options.delegates: 0 fall back, 1 require, -1 never */
  pthread_mutex_t lock;        /* delegate resolution */
  uint32_t resolutions;        /* resolutions run, under lock (tests: once per delegate) */
} tsr_x86_route;

/* route_x86.c. Parses variant vi's route keys for loaded kernel k (its ABI
 * cached) whose blob is open as `handle` with VARS entry `entry` (its
 * symbols already found: function, workspace_size). TSR_ERROR_CORRUPT
 * naming the key for a malformed route, TSR_ERROR_LOAD_FAILED for an entry
 * step whose symbols the blob lacks. */
tsr_status tsr_route_load(const struct tsr_kernel* k, size_t variant, void* handle, const char* entry,
                          void* function, void* workspace_size, tsr_x86_route** out, char* msg,
                          size_t msg_size);
void tsr_route_free(tsr_x86_route* r);   /* NULL is a no-op */
/* The step a launch with these (validated) scalars runs: the bucket's first
 * usable step, else the VARS entry. TSR_ERROR_DELEGATE_UNAVAILABLE under
 * policy 1 when a delegate before it cannot be resolved. */
tsr_status tsr_route_pick(tsr_x86_route* r, const int64_t* scalars, const tsr_route_step** out,
                          char* msg, size_t msg_size);
/* Tests: resolutions run on kernel k's route (0 for other kinds). */
uint32_t tsr_route_resolutions(const struct tsr_kernel* k);

/* delegate_x86.c */
/* Fills d (step and libraries already set) from delegate.<callee>.convention
 * and .args, checked against k's ABI so a launch that passed validation
 * never reads or writes outside its buffers. TSR_ERROR_CORRUPT naming the key. */
tsr_status tsr_delegate_parse(const struct tsr_kernel* k, const char* convention, const char* args,
                              tsr_delegate* d, char* msg, size_t msg_size);
/* dlopen of the sonames in order (only <TSR_DELEGATE_DIR>/<soname> when that
 * is set), RTLD_NOW | RTLD_LOCAL, then dlsym of the callee; sets state
 * (and why). Called once, under the route's lock. */
void tsr_delegate_resolve(tsr_delegate* d);
/* 1 when the convention can take these extents (cblas: int). */
int tsr_delegate_fits(const tsr_delegate* d, const int64_t* scalars);
tsr_status tsr_delegate_call(const tsr_delegate* d, void* const* buffers, const int64_t* scalars, char* msg,
                             size_t msg_size);
void tsr_delegate_release(tsr_delegate* d);

#endif /* TSR_ROUTE_H */
