/* x86 delegates (format 2.3; docs/runtime.md, "Routes and delegates"): a
 * route step that calls a vendor library's f32 GEMM instead of an entry of
 * the blob. The library is only ever reached through dlopen, so the stub
 * still runs on a machine without it. Two calling conventions:
 *   cblas_sgemm  (OpenBLAS) CblasRowMajor; a column-major operand is the
 *                transpose of a row-major one: Trans, with its row length as ld.
 *   dnnl_sgemm   (oneDNN)   row-major by definition; 'N' / 'T'; a nonzero
 *                dnnl_status_t is a failed launch.
 * beta is 0 (C is written, never read); alpha folds a `scale` epilogue. */
#include <dlfcn.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_route.h"

typedef void (*cblas_sgemm_fn)(int order, int transa, int transb, int m, int n, int k, float alpha,
                               const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
typedef int (*dnnl_sgemm_fn)(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                             const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                             int64_t ldc);
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

#define BAD(...) do { tsr_set_message(msg, msg_size, __VA_ARGS__); return TSR_ERROR_CORRUPT; } while (0)

/* The n-byte name s among k's buffers (out: index) or scalars (out: scalar number). */
static int find_binding(const struct tsr_kernel* k, const char* s, size_t n, int scalar, uint32_t* out) {
  uint32_t scalars = 0;
  for (size_t i = 0; i < k->info.binding_count; ++i) {
    tsr_binding_info bi;
    if (tsr_kernel_binding_at(k->archive, k->index, i, &bi) != TSR_OK) return 0;
    int is_scalar = bi.role == TSR_ROLE_SCALAR;
    if (is_scalar == scalar && strlen(bi.name) == n && !strncmp(bi.name, s, n)) {
      *out = scalar ? scalars : (uint32_t)i;
      return 1;
    }
    scalars += is_scalar;
  }
  return 0;
}

static int same_extent(tsr_dim_abi x, tsr_dim_abi e) {
  return x.scalar >= 0 ? x.scalar == e.scalar : e.scalar < 0 && x.value == e.value;
}

/* Buffer `buf` is an f32 matrix of role `role` shaped [rows, cols]. */
static int matrix_fits(const struct tsr_kernel* k, uint32_t buf, tsr_role role, tsr_dim_abi rows, tsr_dim_abi cols) {
  const tsr_buffer_abi* b = &k->buffers[buf];
  return b->role == role && b->dtype == TSR_DTYPE_F32 && b->dim_count == 2 &&
         same_extent(k->dims[b->dim_first], rows) && same_extent(k->dims[b->dim_first + 1], cols);
}

/* alpha as C writes it, whatever LC_NUMERIC the application chose. */
static int parse_float(const char* s, size_t n, float* out) {
  static locale_t c_locale;   /* made once, kept for the process */
  char text[64];
  if (n == 0 || n >= sizeof text) return 0;
  memcpy(text, s, n);
  text[n] = 0;
  if (!c_locale) {
    locale_t l = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!l) return 0;
    locale_t expected = (locale_t)0;
    if (!__atomic_compare_exchange_n(&c_locale, &expected, l, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) freelocale(l);
  }
  char* end;
  double v = strtod_l(text, &end, __atomic_load_n(&c_locale, __ATOMIC_ACQUIRE));
  if (*end || v != v || v > 3.4e38 || v < -3.4e38) return 0;
  *out = (float)v;
  return 1;
}

tsr_status tsr_delegate_parse(const struct tsr_kernel* k, const char* convention, const char* args,
                              tsr_delegate* d, char* msg, size_t msg_size) {
  const char* callee = d->step + 9;
  char q[TSR_QUOTE_SIZE];
  if (!strcmp(convention, "cblas_sgemm")) d->convention = TSR_CONV_CBLAS_SGEMM;
  else if (!strcmp(convention, "dnnl_sgemm")) d->convention = TSR_CONV_DNNL_SGEMM;
  else {
    tsr_quote(q, convention);
    BAD("delegate.%s.convention '%s' is not cblas_sgemm or dnnl_sgemm", callee, q);
  }
  static const char* const names[7] = {"a", "b", "c", "m", "n", "k", "alpha"};
  int seen[7] = {0};
  uint32_t buf[3] = {0};
  int col[2] = {0};
  tsr_dim_abi ext[3];
  for (const char* p = args;;) {
    while (*p == ' ') ++p;
    if (!*p) break;
    size_t n = strcspn(p, " ");
    const char* eq = memchr(p, '=', n);
    size_t name_len = eq ? (size_t)(eq - p) : n, f = 0;
    while (f < 7 && !(strlen(names[f]) == name_len && !strncmp(names[f], p, name_len))) ++f;
    const char* v = eq ? eq + 1 : p + n;
    size_t vn = (size_t)(p + n - v);
    char token[TSR_QUOTE_SIZE];
    snprintf(token, sizeof token, "%.*s", (int)(n < sizeof token - 1 ? n : sizeof token - 1), p);
    tsr_quote(q, token);
    if (!eq || f == 7 || seen[f]) BAD("delegate.%s.args: '%s' is not one of a= b= c= m= n= k= alpha=, once each", callee, q);
    seen[f] = 1;
    if (f < 2) {   /* a, b: <binding>:<row|col> */
      const char* colon = memchr(v, ':', vn);
      size_t bn = colon ? (size_t)(colon - v) : vn;
      if (!colon || !find_binding(k, v, bn, 0, &buf[f]) ||
          !(vn - bn == 4 && (!strncmp(colon, ":row", 4) || !strncmp(colon, ":col", 4))))
        BAD("delegate.%s.args: '%s' is not %s=<buffer>:<row|col>", callee, q, names[f]);
      col[f] = colon[1] == 'c';
    } else if (f == 2) {
      if (!find_binding(k, v, vn, 0, &buf[2])) BAD("delegate.%s.args: '%s' names no buffer", callee, q);
    } else if (f < 6) {   /* m, n, k: a runtime scalar or a literal */
      uint32_t s;
      ext[f - 3].scalar = -1;
      if (find_binding(k, v, vn, 1, &s)) ext[f - 3].scalar = (int32_t)s;
      else if (!tsr_cuda_parse_int(v, vn, &ext[f - 3].value))
        BAD("delegate.%s.args: '%s' is neither a runtime scalar nor an integer", callee, q);
    } else if (!parse_float(v, vn, &d->alpha)) {
      BAD("delegate.%s.args: '%s' is not a decimal number", callee, q);
    }
    p += n;
  }
  for (int f = 0; f < 7; ++f)
    if (!seen[f]) BAD("delegate.%s.args lacks %s=", callee, names[f]);
  d->a = buf[0], d->b = buf[1], d->c = buf[2];
  d->a_col = col[0], d->b_col = col[1];
  d->m = ext[0], d->n = ext[1], d->k = ext[2];
  /* The shapes the launch validated must be the ones the call reads and
   * writes: otherwise a valid launch could make the library overrun. */
  if (!matrix_fits(k, d->a, TSR_ROLE_IN, col[0] ? d->k : d->m, col[0] ? d->m : d->k))
    BAD("delegate.%s.args: buffer '%s' is not an f32 input shaped %s", callee, k->buffers[d->a].name,
        col[0] ? "[k, m]" : "[m, k]");
  if (!matrix_fits(k, d->b, TSR_ROLE_IN, col[1] ? d->n : d->k, col[1] ? d->k : d->n))
    BAD("delegate.%s.args: buffer '%s' is not an f32 input shaped %s", callee, k->buffers[d->b].name,
        col[1] ? "[n, k]" : "[k, n]");
  if (!matrix_fits(k, d->c, TSR_ROLE_OUT, d->m, d->n))
    BAD("delegate.%s.args: buffer '%s' is not an f32 output shaped [m, n]", callee, k->buffers[d->c].name);
  /* A buffer the call ignores (a bias, a residual) is an epilogue it cannot compute. */
  for (uint32_t i = 0; i < k->info.buffer_count; ++i)
    if (i != d->a && i != d->b && i != d->c)
      BAD("delegate.%s.args leaves buffer '%s' unused", callee, k->buffers[i].name);
  return TSR_OK;
}

void tsr_delegate_resolve(tsr_delegate* d) {
  const char* callee = d->step + 9;
  const char* dir = getenv("TSR_DELEGATE_DIR");
  char path[PATH_MAX], error[TSR_MESSAGE_SIZE] = "";
  int symbol_error = 0;
  for (const char* p = d->libraries; *p;) {
    while (*p == ' ') ++p;
    size_t n = strcspn(p, " ");
    if (!n) break;
    if (dir && *dir) snprintf(path, sizeof path, "%s/%.*s", dir, (int)n, p);
    else snprintf(path, sizeof path, "%.*s", (int)n, p);
    p += n;
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      if (!error[0]) tsr_set_message(error, sizeof error, "%s", e ? e : path);
      continue;
    }
    void* f = dlsym(h, callee);
    if (f) {
      d->handle = h;
      d->function = f;
      __atomic_store_n(&d->state, TSR_DELEGATE_READY, __ATOMIC_RELEASE);
      return;
    }
    /* A library without the symbol says more than one that is absent. */
    const char* e = dlerror();
    if (!symbol_error) tsr_set_message(error, sizeof error, "%s", e ? e : callee);
    symbol_error = 1;
    dlclose(h);
  }
  tsr_set_message(d->why, sizeof d->why, "delegate '%s' unavailable (libraries: %s%s%s): %s", callee,
                  d->libraries, dir && *dir ? " in TSR_DELEGATE_DIR=" : "", dir && *dir ? dir : "", error);
  __atomic_store_n(&d->state, TSR_DELEGATE_UNAVAILABLE, __ATOMIC_RELEASE);
}

static int64_t extent(tsr_dim_abi e, const int64_t* scalars) { return e.scalar >= 0 ? scalars[e.scalar] : e.value; }

int tsr_delegate_fits(const tsr_delegate* d, const int64_t* scalars) {
  if (d->convention != TSR_CONV_CBLAS_SGEMM) return 1;
  return extent(d->m, scalars) <= INT_MAX && extent(d->n, scalars) <= INT_MAX && extent(d->k, scalars) <= INT_MAX;
}

static int64_t at_least_1(int64_t v) { return v > 1 ? v : 1; }

tsr_status tsr_delegate_call(const tsr_delegate* d, void* const* buffers, const int64_t* scalars, char* msg,
                             size_t msg_size) {
  const int64_t m = extent(d->m, scalars), n = extent(d->n, scalars), k = extent(d->k, scalars);
  /* Leading dimensions: the stored row length of each row-major matrix. */
  const int64_t lda = at_least_1(d->a_col ? m : k), ldb = at_least_1(d->b_col ? k : n), ldc = at_least_1(n);
  const float* a = (const float*)buffers[d->a];
  const float* b = (const float*)buffers[d->b];
  float* c = (float*)buffers[d->c];
  if (d->convention == TSR_CONV_CBLAS_SGEMM) {
    cblas_sgemm_fn f;
    memcpy(&f, &d->function, sizeof f);
    f(CBLAS_ROW_MAJOR, d->a_col ? CBLAS_TRANS : CBLAS_NO_TRANS, d->b_col ? CBLAS_TRANS : CBLAS_NO_TRANS, (int)m,
      (int)n, (int)k, d->alpha, a, (int)lda, b, (int)ldb, 0.0f, c, (int)ldc);
    return TSR_OK;
  }
  dnnl_sgemm_fn f;
  memcpy(&f, &d->function, sizeof f);
  int status = f(d->a_col ? 'T' : 'N', d->b_col ? 'T' : 'N', m, n, k, d->alpha, a, lda, b, ldb, 0.0f, c, ldc);
  if (status != 0) {
    tsr_set_message(msg, msg_size, "%s returned status %d", d->step + 9, status);
    return TSR_ERROR_LAUNCH_FAILED;
  }
  return TSR_OK;
}

void tsr_delegate_release(tsr_delegate* d) {
  if (d->handle) dlclose(d->handle);
  free(d->step);
  free(d->libraries);
  d->handle = d->function = NULL;
  d->step = d->libraries = NULL;
}
