/* The launch geometry grammar of cuda.grid / cuda.block (docs/targets-cuda.md,
 * "Artifact contract") and the CUDA limits it is checked against (CUDA C++
 * Programming Guide, "Technical Specifications per Compute Capability": the
 * same for every capability from 5.0 to 12.x). The one evaluator of the
 * project: the stub at launch, the compiler at build time. */
#include "tsr_cuda.h"

const char TSR_CUDA_GRID_TOO_LARGE[] = "exceeds the grid limit (x 2^31-1, y and z 65535)";

int tsr_cuda_parse_int(const char* s, size_t n, int64_t* out) {
  int64_t v = 0;
  if (n == 0) return 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 1;
}

/* One component: INT | NAME | cdiv(INT_OR_NAME,INT). */
static int eval_term(const char* s, size_t n, const char* const* names, const int64_t* scalars,
                     size_t scalar_count, int64_t* out) {
  if (n > 6 && strncmp(s, "cdiv(", 5) == 0 && s[n - 1] == ')') {
    const char* comma = memchr(s, ',', n);
    int64_t x, y;
    if (!comma || !eval_term(s + 5, (size_t)(comma - s - 5), names, scalars, scalar_count, &x) ||
        !eval_term(comma + 1, (size_t)(s + n - 1 - comma - 1), names, scalars, scalar_count, &y) || y <= 0)
      return 0;
    *out = x / y + (x % y != 0);
    return 1;
  }
  if (n == 0) return 0;
  if (s[0] >= '0' && s[0] <= '9') return tsr_cuda_parse_int(s, n, out);
  for (size_t i = 0; i < scalar_count; ++i)
    if (strlen(names[i]) == n && strncmp(names[i], s, n) == 0) {
      *out = scalars[i];
      return 1;
    }
  return 0;
}

const char* tsr_cuda_eval_triple(const char* text, const char* what, const char* const* names,
                                 const int64_t* scalars, size_t scalar_count, unsigned out[3]) {
  int grid = strcmp(what, "grid") == 0;
  const int64_t limit[3] = {grid ? 0x7fffffff : 1024, grid ? 65535 : 1024, grid ? 65535 : 64};
  const char* p = text;
  int64_t product = 1;
  for (int i = 0; i < 3; ++i) {
    size_t depth = 0, n = 0;
    while (p[n] && (p[n] != ',' || depth)) {
      depth += p[n] == '(';
      depth -= p[n] == ')' && depth;
      ++n;
    }
    int64_t v;
    if (!eval_term(p, n, names, scalars, scalar_count, &v)) return "does not parse or names an unknown scalar";
    if (v <= 0) return "has a component below 1";
    if (v > limit[i]) return grid ? TSR_CUDA_GRID_TOO_LARGE : "exceeds the block limit (x and y 1024, z 64)";
    product *= v;
    out[i] = (unsigned)v;
    p += n;
    if (i < 2 && *p++ != ',') return "does not have three components";
  }
  if (*p) return "does not have three components";
  if (!grid && product > 1024) return "has more than 1024 threads per block";
  return NULL;
}
