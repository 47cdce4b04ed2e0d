/* CUDA backend through the CUDA driver API (cuda.h, loaded with
 * dlopen("libcuda.so.1")). Launch geometry comes from the variant metadata
 * cuda.block / cuda.grid / cuda.shared_bytes (docs/archive-format.md).
 * Callers pass host pointers: inputs are copied to device memory, outputs
 * copied back after cuCtxSynchronize. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tsr_internal.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int (*cu_init_t)(unsigned);
typedef int (*cu_device_get_t)(int*, int);
typedef int (*cu_attr_t)(int*, int, int);
typedef int (*cu_retain_t)(void**, int);
typedef int (*cu_set_t)(void*);
typedef int (*cu_load_t)(void**, const void*);
typedef int (*cu_getfn_t)(void**, void*, const char*);
typedef int (*cu_unload_t)(void*);
typedef int (*cu_alloc_t)(CUdeviceptr*, size_t);
typedef int (*cu_free_t)(CUdeviceptr);
typedef int (*cu_htod_t)(CUdeviceptr, const void*, size_t);
typedef int (*cu_dtoh_t)(void*, CUdeviceptr, size_t);
typedef int (*cu_launch_t)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, void*, void**, void**);
typedef int (*cu_sync_t)(void);

static struct {
  int state;   /* 0 unprobed, 1 ready, 2 no device */
  int cc;
  void* ctx;
  cu_set_t set_ctx;
  cu_load_t load;
  cu_getfn_t get_fn;
  cu_unload_t unload;
  cu_alloc_t alloc;
  cu_free_t free_mem;
  cu_htod_t htod;
  cu_dtoh_t dtoh;
  cu_launch_t launch;
  cu_sync_t sync;
} cu;

#define CU_SYM(var, type, name) ((var = (type)dlsym(lib, name)) != NULL)

static int probe_once(void) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 2;
  cu_init_t init; cu_device_get_t dev_get; cu_attr_t attr; cu_retain_t retain;
  int ok = CU_SYM(init, cu_init_t, "cuInit") && CU_SYM(dev_get, cu_device_get_t, "cuDeviceGet") &&
           CU_SYM(attr, cu_attr_t, "cuDeviceGetAttribute") &&
           CU_SYM(retain, cu_retain_t, "cuDevicePrimaryCtxRetain") &&
           CU_SYM(cu.set_ctx, cu_set_t, "cuCtxSetCurrent") &&
           CU_SYM(cu.load, cu_load_t, "cuModuleLoadData") &&
           CU_SYM(cu.get_fn, cu_getfn_t, "cuModuleGetFunction") &&
           CU_SYM(cu.unload, cu_unload_t, "cuModuleUnload") &&
           CU_SYM(cu.alloc, cu_alloc_t, "cuMemAlloc_v2") &&
           CU_SYM(cu.free_mem, cu_free_t, "cuMemFree_v2") &&
           CU_SYM(cu.htod, cu_htod_t, "cuMemcpyHtoD_v2") &&
           CU_SYM(cu.dtoh, cu_dtoh_t, "cuMemcpyDtoH_v2") &&
           CU_SYM(cu.launch, cu_launch_t, "cuLaunchKernel") &&
           CU_SYM(cu.sync, cu_sync_t, "cuCtxSynchronize");
  int dev = 0, major = 0, minor = 0;
  /* 75/76: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR */
  if (!ok || init(0) != 0 || dev_get(&dev, 0) != 0 || attr(&major, 75, dev) != 0 ||
      attr(&minor, 76, dev) != 0 || retain(&cu.ctx, dev) != 0)
    return 2;
  cu.cc = major * 10 + minor;
  return 1;
}

static pthread_once_t cu_once = PTHREAD_ONCE_INIT;
static void probe_init(void) { cu.state = probe_once(); }

tsr_status tsr_cuda_probe(int device, int* out_cc) {
  pthread_once(&cu_once, probe_init);
  if (cu.state != 1 || device != 0) return TSR_ERROR_NO_DEVICE;
  *out_cc = cu.cc;
  return TSR_OK;
}

typedef struct cuda_loaded {
  void* module;
  void* function;
} cuda_loaded;

static tsr_status cuda_load(struct tsr_kernel* k, const void* blob, size_t size,
                            const tsr_variant_info* vi, char* msg, size_t msg_size) {
  int cc;
  if (tsr_cuda_probe(k->options.device, &cc) != TSR_OK) return TSR_ERROR_NO_DEVICE;
  int is_ptx = vi->artifact_kind == TSR_ARTIFACT_PTX;
  const char* entry = vi->entry;
  void* image = (void*)blob;
  if (is_ptx) {   /* cuModuleLoadData wants NUL-terminated PTX text */
    image = malloc(size + 1);
    if (!image) return TSR_ERROR_OUT_OF_MEMORY;
    memcpy(image, blob, size);
    ((char*)image)[size] = 0;
  }
  void* module = NULL;
  void* fn = NULL;
  int r = cu.set_ctx(cu.ctx);
  if (r == 0) r = cu.load(&module, image);
  if (image != blob) free(image);
  if (r != 0) {
    tsr_set_message(msg, msg_size, "cuModuleLoadData failed (CUresult %d)", r);
    return TSR_ERROR_LOAD_FAILED;
  }
  if ((r = cu.get_fn(&fn, module, entry)) != 0) {
    tsr_set_message(msg, msg_size, "cuModuleGetFunction('%s') failed (CUresult %d)", entry, r);
    cu.unload(module);
    return TSR_ERROR_LOAD_FAILED;
  }
  cuda_loaded* l = (cuda_loaded*)calloc(1, sizeof *l);
  if (!l) {
    cu.unload(module);
    return TSR_ERROR_OUT_OF_MEMORY;
  }
  l->module = module;
  l->function = fn;
  k->backend_state = l;
  return TSR_OK;
}

/* Decimal digits only, at most INT64_MAX. */
static int parse_int(const char* s, size_t n, int64_t* out) {
  int64_t v = 0;
  if (n == 0) return 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 1;
}

/* One term of cuda.grid: INT | NAME | cdiv(INT_OR_NAME,INT). */
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
  if (s[0] >= '0' && s[0] <= '9') return parse_int(s, n, out);
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
  /* CUDA C++ Programming Guide, "Technical Specifications per Compute Capability". */
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
    if (v > limit[i]) return grid ? "exceeds the grid limit (x 2^31-1, y and z 65535)"
                                   : "exceeds the block limit (x and y 1024, z 64)";
    product *= v;
    out[i] = (unsigned)v;
    p += n;
    if (i < 2 && *p++ != ',') return "does not have three components";
  }
  if (*p) return "does not have three components";
  if (!grid && product > 1024) return "has more than 1024 threads per block";
  return NULL;
}

static tsr_status cuda_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg,
                              size_t msg_size) {
  const cuda_loaded* l = (const cuda_loaded*)k->backend_state;
  const tsr_archive* a = k->archive;
  size_t kernel = k->index, variant = k->selection.variant;
  if (args->device_ordinal != k->options.device) {
    tsr_set_message(msg, msg_size, "launch on device %d of a kernel loaded on device %d", args->device_ordinal,
                    k->options.device);
    return TSR_ERROR_UNSUPPORTED;
  }
  const char* names[64];
  if (args->scalar_count > 64) return TSR_ERROR_UNSUPPORTED;
  for (size_t i = 0; i < args->scalar_count; ++i) {
    tsr_binding_info bi;
    if (tsr_kernel_binding_at(a, kernel, k->info.buffer_count + i, &bi) != TSR_OK) return TSR_ERROR_CORRUPT;
    names[i] = bi.name;
  }
  const char *block_s = NULL, *grid_s = NULL, *shared_s = "0";
  unsigned block[3], grid[3];
  int64_t shared = 0;
  /* The geometry is checked before any device memory is allocated. */
  tsr_status found = tsr_variant_metadata_find(a, kernel, variant, "cuda.shared_bytes", &shared_s);
  if ((found != TSR_OK && found != TSR_ERROR_NOT_FOUND) ||
      !parse_int(shared_s, strlen(shared_s), &shared) || shared > 0x7fffffff) {
    tsr_set_message(msg, msg_size, "cuda variant has an invalid cuda.shared_bytes '%.32s'", shared_s);
    return TSR_ERROR_CORRUPT;
  }
  if (tsr_variant_metadata_find(a, kernel, variant, "cuda.block", &block_s) != TSR_OK ||
      tsr_variant_metadata_find(a, kernel, variant, "cuda.grid", &grid_s) != TSR_OK ||
      tsr_cuda_eval_triple(block_s, "block", names, args->scalars, args->scalar_count, block) ||
      tsr_cuda_eval_triple(grid_s, "grid", names, args->scalars, args->scalar_count, grid)) {
    tsr_set_message(msg, msg_size, "cuda variant has no valid cuda.block / cuda.grid metadata");
    return TSR_ERROR_CORRUPT;
  }
  size_t n = args->buffer_count, total = n + args->scalar_count;
  if (args->device) {   /* device pointers: passed through, asynchronous on the caller's stream */
    void** dparams = (void**)calloc(total ? total : 1, sizeof *dparams);
    if (!dparams) return TSR_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; ++i) dparams[i] = (void*)&args->device[i];
    for (size_t j = 0; j < args->scalar_count; ++j) dparams[n + j] = (void*)&args->scalars[j];
    int rr = cu.set_ctx(cu.ctx);
    if (rr == 0)
      rr = cu.launch(l->function, grid[0], grid[1], grid[2], block[0], block[1], block[2], (unsigned)shared,
                     args->stream, dparams, NULL);
    free(dparams);
    if (rr != 0) {
      tsr_set_message(msg, msg_size, "CUDA launch failed (CUresult %d)", rr);
      return TSR_ERROR_LAUNCH_FAILED;
    }
    return TSR_OK;
  }
  CUdeviceptr* dev = (CUdeviceptr*)calloc(n ? n : 1, sizeof *dev);
  void** params = (void**)calloc(total ? total : 1, sizeof *params);
  tsr_status s = dev && params ? TSR_OK : TSR_ERROR_OUT_OF_MEMORY;
  int r = 0;
  if (s == TSR_OK) r = cu.set_ctx(cu.ctx);
  for (size_t i = 0; s == TSR_OK && r == 0 && i < n; ++i) {
    size_t bytes = (size_t)args->required_bytes[i];
    r = cu.alloc(&dev[i], bytes ? bytes : 1);
    if (r == 0 && k->buffers[i].role == TSR_ROLE_IN && bytes) r = cu.htod(dev[i], args->host[i], bytes);
    params[i] = &dev[i];
  }
  for (size_t j = 0; s == TSR_OK && j < args->scalar_count; ++j) params[n + j] = (void*)&args->scalars[j];
  if (s == TSR_OK && r == 0)
    r = cu.launch(l->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                  (unsigned)shared, NULL, params, NULL);
  if (s == TSR_OK && r == 0) r = cu.sync();
  for (size_t i = 0; s == TSR_OK && r == 0 && i < n; ++i)
    if (k->buffers[i].role == TSR_ROLE_OUT && args->required_bytes[i])
      r = cu.dtoh(args->host[i], dev[i], (size_t)args->required_bytes[i]);
  for (size_t i = 0; dev && i < n; ++i)
    if (dev[i]) cu.free_mem(dev[i]);
  free(dev);
  free(params);
  if (s == TSR_OK && r != 0) {
    tsr_set_message(msg, msg_size, "CUDA launch failed (CUresult %d)", r);
    s = TSR_ERROR_LAUNCH_FAILED;
  }
  return s;
}

static void cuda_unload(struct tsr_kernel* k) {
  cuda_loaded* l = (cuda_loaded*)k->backend_state;
  if (l && l->module && cu.state == 1) cu.unload(l->module);
  free(l);
  k->backend_state = NULL;
}

/* The cubin built for the device's compute capability, else PTX whose
 * target (cuda.ptx_arch, "compute_80") the device meets. */
static tsr_status cuda_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                              size_t* out_variant, const char** out_route) {
  int cc = 0;
  if (tsr_cuda_probe(o ? o->device : 0, &cc) != TSR_OK) return TSR_ERROR_NO_DEVICE;
  char sm[32];
  snprintf(sm, sizeof sm, "sm_%d", cc);
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return TSR_ERROR_CORRUPT;
  long ptx = -1;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) != TSR_OK || strcmp(vi.target_kind, "cuda") != 0 ||
        !tsr_select_wants_arch(o, vi.arch))
      continue;
    if (vi.artifact_kind == TSR_ARTIFACT_CUBIN && strcmp(vi.arch, sm) == 0) {
      *out_variant = v;
      *out_route = "cubin";
      return TSR_OK;
    }
    const char* target = NULL;
    int64_t need = 0;
    if (vi.artifact_kind == TSR_ARTIFACT_PTX && ptx < 0 &&
        tsr_variant_metadata_find(a, kernel, v, "cuda.ptx_arch", &target) == TSR_OK &&
        strncmp(target, "compute_", 8) == 0 && parse_int(target + 8, strlen(target + 8), &need) && need <= cc)
      ptx = (long)v;
  }
  if (ptx < 0) return TSR_ERROR_NO_VARIANT;
  *out_variant = (size_t)ptx;
  *out_route = "ptx-jit";
  return TSR_OK;
}

const tsr_backend tsr_backend_cuda = {
    "cuda", "tsr_kernel_launch_device", 1, cuda_select, cuda_load, cuda_launch, cuda_unload,
};
