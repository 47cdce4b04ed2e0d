/* An x86 variant's route (format 2.3; docs/runtime.md, "Routes and
 * delegates"): the buckets of route.dim split at route.bounds, each an
 * ordered list of steps in route.<i>, `entry:<symbol>` or
 * `delegate:<callee>`. Everything is parsed and every entry symbol found at
 * load, so a launch only compares one scalar and walks a short list; a
 * delegate's library is resolved on its first use, once, under the route's
 * lock. Without route keys a variant has one bucket whose only step is its
 * VARS entry, which also ends every bucket: it is valid for every shape. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_route.h"

#define FAIL(code, ...) do { tsr_set_message(msg, msg_size, __VA_ARGS__); s = (code); goto done; } while (0)

static char* copy_n(const char* s, size_t n) {
  char* p = (char*)malloc(n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = 0;
  }
  return p;
}

/* Tokens of a space-separated list: *pos advances past the next one. */
static size_t next_token(const char* s, size_t* pos, const char** out) {
  while (s[*pos] == ' ') ++*pos;
  *out = s + *pos;
  size_t start = *pos;
  while (s[*pos] && s[*pos] != ' ') ++*pos;
  return *pos - start;
}

static const char* find_key(const struct tsr_kernel* k, size_t v, const char* key) {
  const char* value = NULL;
  return tsr_variant_metadata_find(k->archive, k->index, v, key, &value) == TSR_OK ? value : NULL;
}

/* "16,256": strictly ascending positive integers. */
static int parse_bounds(const char* s, int64_t* out, size_t* count) {
  size_t n = 0;
  for (const char* p = s;; ++n) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (!tsr_cuda_parse_int(p, len, &out[n]) || out[n] <= 0 || (n && out[n] <= out[n - 1])) return 0;
    if (!end) break;
    p = end + 1;
  }
  *count = n + 1;
  return 1;
}

/* Every route.* key must be route.dim, route.bounds or route.<i> of a bucket. */
static const char* stray_route_key(const struct tsr_kernel* k, size_t v, size_t metadata_count, size_t buckets) {
  for (size_t i = 0; i < metadata_count; ++i) {
    const char *key, *value;
    if (tsr_variant_metadata_at(k->archive, k->index, v, i, &key, &value) != TSR_OK) return "?";
    if (strncmp(key, "route.", 6) != 0 || !strcmp(key + 6, "dim") || !strcmp(key + 6, "bounds")) continue;
    int64_t b;
    const char* digits = key + 6;
    if (!tsr_cuda_parse_int(digits, strlen(digits), &b) || (digits[0] == '0' && digits[1]) ||
        (uint64_t)b >= buckets)
      return key;
  }
  return NULL;
}

/* Finds (or adds, from its delegate.<callee>.* keys) the delegate of callee [c, c+n). */
static tsr_status delegate_for(const struct tsr_kernel* k, size_t v, tsr_x86_route* r, const char* route_key,
                               const char* c, size_t n, tsr_delegate** out, char* msg, size_t msg_size) {
  for (size_t i = 0; i < r->delegate_count; ++i)
    if (strlen(r->delegates[i].step + 9) == n && !strncmp(r->delegates[i].step + 9, c, n)) {
      *out = &r->delegates[i];
      return TSR_OK;
    }
  tsr_delegate* d = &r->delegates[r->delegate_count++];
  char key[TSR_QUOTE_SIZE + 32];
  if (!(d->step = (char*)malloc(n + 10))) return TSR_ERROR_OUT_OF_MEMORY;
  memcpy(d->step, "delegate:", 9);
  memcpy(d->step + 9, c, n);
  d->step[9 + n] = 0;
  const char* callee = d->step + 9;
  if (!tsr_is_identifier(callee) || n > TSR_QUOTE_SIZE) {
    char q[TSR_QUOTE_SIZE];
    tsr_quote(q, callee);
    tsr_set_message(msg, msg_size, "%s: step 'delegate:%s': the callee is not a C identifier", route_key, q);
    return TSR_ERROR_CORRUPT;
  }
  const char* value[3];
  static const char* const field[3] = {"convention", "library", "args"};
  for (int f = 0; f < 3; ++f) {
    snprintf(key, sizeof key, "delegate.%s.%s", callee, field[f]);
    if (!(value[f] = find_key(k, v, key))) {
      tsr_set_message(msg, msg_size, "route names delegate '%s' but %s is missing", callee, key);
      return TSR_ERROR_CORRUPT;
    }
  }
  size_t pos = 0;
  const char* tok;
  if (!next_token(value[1], &pos, &tok)) {
    tsr_set_message(msg, msg_size, "delegate.%s.library names no library", callee);
    return TSR_ERROR_CORRUPT;
  }
  if (!(d->libraries = copy_n(value[1], strlen(value[1])))) return TSR_ERROR_OUT_OF_MEMORY;
  *out = d;
  return tsr_delegate_parse(k, value[0], value[2], d, msg, msg_size);
}

/* One step token of key route.<bucket>. */
static tsr_status parse_step(const struct tsr_kernel* k, size_t v, void* handle, tsr_x86_route* r,
                             const char* key, const char* t, size_t n, tsr_route_step* step, char* msg,
                             size_t msg_size) {
  char q[TSR_QUOTE_SIZE];
  if (n > 9 && !strncmp(t, "delegate:", 9)) return delegate_for(k, v, r, key, t + 9, n - 9, &step->delegate, msg, msg_size);
  if (!(step->text = copy_n(t, n))) return TSR_ERROR_OUT_OF_MEMORY;
  const char* symbol = step->text + 6;
  if (n <= 6 || strncmp(t, "entry:", 6) != 0 || !tsr_is_identifier(symbol)) {
    tsr_quote(q, step->text);
    tsr_set_message(msg, msg_size, "%s: step '%s' is neither delegate:<callee> nor entry:<symbol>", key, q);
    return TSR_ERROR_CORRUPT;
  }
  char* workspace = (char*)malloc(n - 6 + sizeof "_workspace");
  if (!workspace) return TSR_ERROR_OUT_OF_MEMORY;
  snprintf(workspace, n - 6 + sizeof "_workspace", "%s_workspace", symbol);
  step->function = dlsym(handle, symbol);
  step->workspace_size = step->function ? dlsym(handle, workspace) : NULL;
  tsr_quote(q, step->function ? workspace : symbol);
  free(workspace);
  if (!step->workspace_size) {
    tsr_set_message(msg, msg_size, "%s: x86 artifact does not export '%s'", key, q);
    return TSR_ERROR_LOAD_FAILED;
  }
  return TSR_OK;
}

tsr_status tsr_route_load(const struct tsr_kernel* k, size_t v, void* handle, const char* entry, void* function,
                          void* workspace_size, tsr_x86_route** out, char* msg, size_t msg_size) {
  tsr_status s = TSR_OK;
  tsr_variant_info vi;
  if (tsr_kernel_variant_at(k->archive, k->index, v, &vi) != TSR_OK) return TSR_ERROR_CORRUPT;
  tsr_x86_route* r = (tsr_x86_route*)calloc(1, sizeof *r);
  if (!r) return TSR_ERROR_OUT_OF_MEMORY;
  pthread_mutex_init(&r->lock, NULL);
  r->dim = -1;
  r->bucket_count = 1;
  r->policy = k->options.delegates;
  r->fallback.function = function;
  r->fallback.workspace_size = workspace_size;
  size_t entry_len = strlen(entry);
  char q[TSR_QUOTE_SIZE], key[32];
  if (!(r->fallback.text = (char*)malloc(entry_len + 7))) FAIL(TSR_ERROR_OUT_OF_MEMORY, "out of memory");
  snprintf(r->fallback.text, entry_len + 7, "entry:%s", entry);

  const char* dim = find_key(k, v, "route.dim");
  const char* bounds = find_key(k, v, "route.bounds");
  if (dim) {
    size_t scalar = 0;
    for (size_t i = 0; i < k->info.binding_count && r->dim < 0; ++i) {
      tsr_binding_info bi;
      if (tsr_kernel_binding_at(k->archive, k->index, i, &bi) != TSR_OK) FAIL(TSR_ERROR_CORRUPT, "bad binding");
      if (bi.role == TSR_ROLE_SCALAR && !strcmp(bi.name, dim)) r->dim = (int32_t)scalar;
      scalar += bi.role == TSR_ROLE_SCALAR;
    }
    tsr_quote(q, dim);
    if (r->dim < 0) FAIL(TSR_ERROR_CORRUPT, "route.dim '%s' is not a runtime scalar of kernel '%s'", q, k->info.name);
  }
  if (bounds && *bounds) {   /* empty: no bounds, one bucket */
    tsr_quote(q, bounds);
    if (!dim) FAIL(TSR_ERROR_CORRUPT, "route.bounds '%s' without route.dim", q);
    if (!(r->bounds = (int64_t*)malloc((strlen(bounds) / 2 + 1) * sizeof *r->bounds)))
      FAIL(TSR_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t n;
    if (!parse_bounds(bounds, r->bounds, &n))
      FAIL(TSR_ERROR_CORRUPT, "route.bounds '%s' is not a list of ascending positive integers", q);
    r->bucket_count = n + 1;
  }
  const char* stray = stray_route_key(k, v, vi.metadata_count, r->bucket_count);
  if (stray) {
    tsr_quote(q, stray);
    FAIL(TSR_ERROR_CORRUPT, "unknown route key '%s' (%zu bucket%s)", q, r->bucket_count,
         r->bucket_count == 1 ? "" : "s");
  }
  int routed = dim || find_key(k, v, "route.0");
  /* Tokens in all buckets: the most steps and delegates there can be. */
  size_t tokens = 0;
  for (size_t i = 0; routed && i < r->bucket_count; ++i) {
    snprintf(key, sizeof key, "route.%zu", i);
    const char* list = find_key(k, v, key);
    if (!list)
      FAIL(TSR_ERROR_CORRUPT, "%s is missing (%zu bucket%s)", key, r->bucket_count, r->bucket_count == 1 ? "" : "s");
    size_t pos = 0, n_before = tokens;
    const char* t;
    while (next_token(list, &pos, &t)) ++tokens;
    if (tokens == n_before) FAIL(TSR_ERROR_CORRUPT, "%s lists no step", key);
  }
  r->first = (size_t*)calloc(r->bucket_count + 1, sizeof *r->first);
  r->steps = (tsr_route_step*)calloc(tokens ? tokens : 1, sizeof *r->steps);
  r->step_capacity = r->steps ? tokens : 0;
  r->delegates = (tsr_delegate*)calloc(tokens ? tokens : 1, sizeof *r->delegates);
  if (!r->first || !r->steps || !r->delegates) FAIL(TSR_ERROR_OUT_OF_MEMORY, "out of memory");
  size_t next = 0;
  for (size_t i = 0; routed && i < r->bucket_count; ++i) {
    snprintf(key, sizeof key, "route.%zu", i);
    const char* list = find_key(k, v, key);
    size_t pos = 0, n;
    const char* t;
    r->first[i] = next;
    while ((n = next_token(list, &pos, &t)))
      if ((s = parse_step(k, v, handle, r, key, t, n, &r->steps[next++], msg, msg_size)) != TSR_OK) goto done;
  }
  for (size_t i = routed ? r->bucket_count : 0; i <= r->bucket_count; ++i) r->first[i] = next;
done:
  if (s != TSR_OK) {
    /* Messages so far name the key; add whose it is. */
    char detail[TSR_MESSAGE_SIZE];
    snprintf(detail, sizeof detail, "%s", msg ? msg : "");
    tsr_set_message(msg, msg_size, "kernel '%s' variant x86:%s: %s", k->info.name, vi.arch, detail);
    tsr_route_free(r);
    r = NULL;
  }
  *out = r;
  return s;
}

void tsr_route_free(tsr_x86_route* r) {
  if (!r) return;
  for (size_t i = 0; r->delegates && i < r->delegate_count; ++i) tsr_delegate_release(&r->delegates[i]);
  for (size_t i = 0; i < r->step_capacity; ++i) free(r->steps[i].text);
  free(r->fallback.text);
  free(r->delegates);
  free(r->steps);
  free(r->first);
  free(r->bounds);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

/* 1 when d can run now: resolved once (later calls read the state). */
static int delegate_ready(tsr_x86_route* r, tsr_delegate* d) {
  int state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
  if (state == TSR_DELEGATE_UNRESOLVED) {
    pthread_mutex_lock(&r->lock);
    if ((state = d->state) == TSR_DELEGATE_UNRESOLVED) {
      tsr_delegate_resolve(d);
      ++r->resolutions;
      state = d->state;
    }
    pthread_mutex_unlock(&r->lock);
  }
  return state == TSR_DELEGATE_READY;
}

tsr_status tsr_route_pick(tsr_x86_route* r, const int64_t* scalars, const tsr_route_step** out, char* msg,
                          size_t msg_size) {
  size_t bucket = 0;
  if (r->dim >= 0)
    while (bucket + 1 < r->bucket_count && scalars[r->dim] > r->bounds[bucket]) ++bucket;
  for (size_t i = r->first[bucket]; i < r->first[bucket + 1]; ++i) {
    tsr_route_step* step = &r->steps[i];
    tsr_delegate* d = step->delegate;
    if (!d) {
      *out = step;
      return TSR_OK;
    }
    if (r->policy < 0) continue;
    if (!delegate_ready(r, d)) {
      if (r->policy > 0) {
        tsr_set_message(msg, msg_size, "%s", d->why);
        return TSR_ERROR_DELEGATE_UNAVAILABLE;
      }
      continue;
    }
    if (tsr_delegate_fits(d, scalars)) {
      *out = step;
      return TSR_OK;
    }
  }
  *out = &r->fallback;
  return TSR_OK;
}

uint32_t tsr_route_resolutions(const struct tsr_kernel* k) {
  if (!k || k->backend != &tsr_backend_x86 || !k->backend_state) return 0;
  tsr_x86_route* r = ((tsr_x86_loaded*)k->backend_state)->route;
  if (!r) return 0;
  pthread_mutex_lock(&r->lock);
  uint32_t n = r->resolutions;
  pthread_mutex_unlock(&r->lock);
  return n;
}

tsr_status tsr_kernel_route(tsr_kernel* k, const int64_t* scalars, size_t scalar_count, const char** out_step) {
  if (!k || !out_step || (!scalars && scalar_count)) return TSR_ERROR_NULL_ARGUMENT;
  char* msg = tsr_message_slot(TSR_MSG_KERNEL, k->message_id);
  msg[0] = 0;
  if (scalar_count != k->info.scalar_count) {
    tsr_set_message(msg, TSR_MESSAGE_SIZE, "%s: expected %zu scalars, got %zu", k->info.name, k->info.scalar_count,
                    scalar_count);
    return TSR_ERROR_ARG_COUNT;
  }
  for (size_t j = 0; j < scalar_count; ++j)
    if (scalars[j] < 0) {
      tsr_set_message(msg, TSR_MESSAGE_SIZE, "%s: scalar %zu is negative", k->info.name, j);
      return TSR_ERROR_INVALID_SCALAR;
    }
  tsr_x86_route* r = k->backend == &tsr_backend_x86 ? ((tsr_x86_loaded*)k->backend_state)->route : NULL;
  if (!r) {
    *out_step = k->entry_step;
    return TSR_OK;
  }
  const tsr_route_step* step;
  tsr_status s = tsr_route_pick(r, scalars, &step, msg, TSR_MESSAGE_SIZE);
  if (s == TSR_OK) *out_step = step->delegate ? step->delegate->step : step->text;
  return s;
}
