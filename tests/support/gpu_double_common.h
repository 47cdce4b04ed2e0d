/* What the GPU runtime TEST DOUBLES share (cuda_driver_double.c,
 * hip_runtime_double.c; tests only): the call log, injected failures, the
 * double's own "device" allocations, the loaded modules, the text images'
 * fields and the op=add emulation. Included by exactly one file of each double, before which
 * DOUBLE_CALL names that double's call record type (same fields: function,
 * device, result, arg_count, args[], text[]). All state is that file's own. */
#ifndef TSR_GPU_DOUBLE_COMMON_H
#define TSR_GPU_DOUBLE_COMMON_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define U(x) ((unsigned long long)(uintptr_t)(x))

typedef struct allocation { uint8_t* p; size_t bytes; } allocation;
typedef struct rule { char function[40]; int result, skip, times; } rule;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static allocation allocations[256];
static rule rules[16];
static int rule_count;
static unsigned load_delay_us;
static DOUBLE_CALL* log_calls;
static size_t log_size, log_capacity;

/* Under lock: forgets the log, the failures and every allocation. */
static void common_reset(void) {
  for (size_t i = 0; i < sizeof allocations / sizeof *allocations; ++i) free(allocations[i].p);
  memset(allocations, 0, sizeof allocations);
  rule_count = 0;
  __atomic_store_n(&load_delay_us, 0, __ATOMIC_RELAXED);
  free(log_calls);
  log_calls = NULL;
  log_size = log_capacity = 0;
}

static void common_fail(const char* fn, int result, int skip, int times) {
  pthread_mutex_lock(&lock);
  if (rule_count < (int)(sizeof rules / sizeof *rules)) {
    rule* r = &rules[rule_count++];
    snprintf(r->function, sizeof r->function, "%s", fn);
    r->result = result;
    r->skip = skip;
    r->times = times;
  }
  pthread_mutex_unlock(&lock);
}

static int common_call_at(size_t i, DOUBLE_CALL* out) {
  pthread_mutex_lock(&lock);
  int ok = i < log_size;
  if (ok) *out = log_calls[i];
  pthread_mutex_unlock(&lock);
  return ok;
}

/* Under lock: appends a call made on `device`. */
static DOUBLE_CALL* record(const char* fn, int nargs, const unsigned long long* args, int device) {
  if (log_size == log_capacity) {
    size_t cap = log_capacity ? log_capacity * 2 : 64;
    DOUBLE_CALL* grown = (DOUBLE_CALL*)realloc(log_calls, cap * sizeof *grown);
    if (!grown) abort();
    log_calls = grown;
    log_capacity = cap;
  }
  DOUBLE_CALL* c = &log_calls[log_size++];
  memset(c, 0, sizeof *c);
  snprintf(c->function, sizeof c->function, "%s", fn);
  c->device = device;
  c->arg_count = nargs;
  memcpy(c->args, args, (size_t)nargs * sizeof *args);
  return c;
}

/* Under lock: the injected result for this call of fn, or 0. */
static int injected(const char* fn) {
  for (int i = 0; i < rule_count; ++i) {
    rule* r = &rules[i];
    if (strcmp(r->function, fn) != 0 || r->times == 0) continue;
    if (r->skip > 0) {
      --r->skip;
      continue;
    }
    if (r->times > 0) --r->times;
    return r->result;
  }
  return 0;
}

static int leave(DOUBLE_CALL* call, int rc) {
  call->result = rc;
  pthread_mutex_unlock(&lock);
  return rc;
}

/* Under lock: the allocation holding [address, address+bytes), or NULL. */
static allocation* find_allocation(uint64_t address, size_t bytes) {
  for (size_t i = 0; i < sizeof allocations / sizeof *allocations; ++i) {
    allocation* a = &allocations[i];
    if (a->p && address >= U(a->p) && bytes <= a->bytes && address - U(a->p) <= a->bytes - bytes) return a;
  }
  return NULL;
}

/* Under lock: a new allocation of `bytes` > 0, or NULL when the table is full. */
static uint8_t* allocate(size_t bytes) {
  for (size_t i = 0; i < sizeof allocations / sizeof *allocations; ++i)
    if (!allocations[i].p) {
      allocations[i].p = (uint8_t*)aligned_alloc(256, (bytes + 255) / 256 * 256);
      allocations[i].bytes = bytes;
      return allocations[i].p;
    }
  return NULL;
}

/* Images are text lines "tsr-...-double key=value ...": one field's value. */
static int field(const char* line, const char* key, char* out, size_t size) {
  const char* p = strstr(line, key);
  if (!p) return 0;
  p += strlen(key);
  size_t n = strcspn(p, " \n");
  snprintf(out, size, "%.*s", (int)n, p);
  return 1;
}

/* A loaded image and its one function. max_dynamic_shared is CUDA's function
 * attribute 8 (cuFuncSetAttribute); the HIP double never sets it. */
typedef struct function { struct module* module; int max_dynamic_shared; } function;
typedef struct module {
  int device, params, add, live;
  char entry[64];
  function fn;
} module;
static module modules[256];
static int module_count;

/* Under lock: a new live module on `device` from an image's marker line
 * ("params=N [op=add] [entry=NAME]"), or NULL when the table is full. */
static module* add_module(const char* marker, int device) {
  if (module_count == (int)(sizeof modules / sizeof *modules)) return NULL;
  char params[16] = "0", op[16] = "";
  field(marker, "params=", params, sizeof params);
  field(marker, "op=", op, sizeof op);
  module* m = &modules[module_count++];
  m->device = device;
  m->params = atoi(params);
  m->add = strcmp(op, "add") == 0;
  m->live = 1;
  m->fn.module = m;
  if (!field(marker, "entry=", m->entry, sizeof m->entry)) m->entry[0] = 0;
  return m;
}

static module* live_module(void* handle) {
  for (int i = 0; i < module_count; ++i)
    if (handle == &modules[i] && modules[i].live) return &modules[i];
  return NULL;
}

/* op=add: out[i] = in0[i] + in1[i] over n f32 elements, parameters (in0, in1, out, n). */
static void emulate_add(const unsigned long long* p) {
  uint64_t n = p[3];
  if (n > (1u << 28) || !find_allocation(p[0], n * 4) || !find_allocation(p[1], n * 4) ||
      !find_allocation(p[2], n * 4))
    return;   /* not this double's memory (a device-pointer test's made-up addresses) */
  const float* a = (const float*)(uintptr_t)p[0];
  const float* b = (const float*)(uintptr_t)p[1];
  float* o = (float*)(uintptr_t)p[2];
  for (uint64_t i = 0; i < n; ++i) o[i] = a[i] + b[i];
}

#endif /* TSR_GPU_DOUBLE_COMMON_H */
