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

tsr_status tsr_cuda_probe(int* out_cc) {
  pthread_once(&cu_once, probe_init);
  if (cu.state != 1) return TSR_ERROR_NO_DEVICE;
  *out_cc = cu.cc;
  return TSR_OK;
}

tsr_status tsr_cuda_load(const void* blob, size_t size, int is_ptx, const char* entry,
                         tsr_loaded* out, char* msg, size_t msg_size) {
  int cc;
  if (tsr_cuda_probe(&cc) != TSR_OK) return TSR_ERROR_NO_DEVICE;
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
  out->handle = module;
  out->function = fn;
  out->backend = TSR_BACKEND_CUDA;
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
static int eval_term(const char* s, size_t n, const tsr_archive* a, size_t kernel,
                     const int64_t* scalars, int64_t* out) {
  if (n > 6 && strncmp(s, "cdiv(", 5) == 0 && s[n - 1] == ')') {
    const char* comma = memchr(s, ',', n);
    int64_t x, y;
    if (!comma || !eval_term(s + 5, (size_t)(comma - s - 5), a, kernel, scalars, &x) ||
        !eval_term(comma + 1, (size_t)(s + n - 1 - comma - 1), a, kernel, scalars, &y) || y <= 0)
      return 0;
    *out = x / y + (x % y != 0);
    return 1;
  }
  if (n == 0) return 0;
  if (s[0] >= '0' && s[0] <= '9') return parse_int(s, n, out);
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return 0;
  for (size_t i = 0; i < ki.scalar_count; ++i) {
    tsr_binding_info bi;
    if (tsr_kernel_binding_at(a, kernel, ki.buffer_count + i, &bi) != TSR_OK) return 0;
    if (strlen(bi.name) == n && strncmp(bi.name, s, n) == 0) {
      *out = scalars[i];
      return 1;
    }
  }
  return 0;
}

int tsr_cuda_eval_triple(const char* text, const tsr_archive* a, size_t kernel,
                         const int64_t* scalars, unsigned out[3]) {
  const char* p = text;
  for (int i = 0; i < 3; ++i) {
    size_t depth = 0, n = 0;
    while (p[n] && (p[n] != ',' || depth)) {
      depth += p[n] == '(';
      depth -= p[n] == ')' && depth;
      ++n;
    }
    int64_t v;
    if (!eval_term(p, n, a, kernel, scalars, &v) || v <= 0 || v > 0x7fffffff) return 0;
    out[i] = (unsigned)v;
    p += n;
    if (i < 2 && *p++ != ',') return 0;
  }
  return *p == 0;
}

tsr_status tsr_cuda_launch(const tsr_loaded* l, const tsr_launch_args* args, const tsr_archive* a,
                           size_t kernel, size_t variant, char* msg, size_t msg_size) {
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
      !tsr_cuda_eval_triple(block_s, a, kernel, args->scalars, block) ||
      !tsr_cuda_eval_triple(grid_s, a, kernel, args->scalars, grid)) {
    tsr_set_message(msg, msg_size, "cuda variant has no valid cuda.block / cuda.grid metadata");
    return TSR_ERROR_CORRUPT;
  }
  size_t n = args->buffer_count, total = n + args->scalar_count;
  CUdeviceptr* dev = (CUdeviceptr*)calloc(n ? n : 1, sizeof *dev);
  void** params = (void**)calloc(total ? total : 1, sizeof *params);
  tsr_status s = dev && params ? TSR_OK : TSR_ERROR_OUT_OF_MEMORY;
  int r = 0;
  if (s == TSR_OK) r = cu.set_ctx(cu.ctx);
  for (size_t i = 0; s == TSR_OK && r == 0 && i < n; ++i) {
    size_t bytes = (size_t)args->required_bytes[i];
    r = cu.alloc(&dev[i], bytes ? bytes : 1);
    if (r == 0 && args->buffers[i].role == TSR_ROLE_IN && bytes) r = cu.htod(dev[i], args->buffers[i].data, bytes);
    params[i] = &dev[i];
  }
  for (size_t j = 0; s == TSR_OK && j < args->scalar_count; ++j) params[n + j] = (void*)&args->scalars[j];
  if (s == TSR_OK && r == 0)
    r = cu.launch(l->function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                  (unsigned)shared, NULL, params, NULL);
  if (s == TSR_OK && r == 0) r = cu.sync();
  for (size_t i = 0; s == TSR_OK && r == 0 && i < n; ++i)
    if (args->buffers[i].role == TSR_ROLE_OUT && args->required_bytes[i])
      r = cu.dtoh(args->buffers[i].data, dev[i], (size_t)args->required_bytes[i]);
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

void tsr_cuda_unload(tsr_loaded* l) {
  if (l->handle && cu.state == 1) cu.unload(l->handle);
  l->handle = l->function = NULL;
}
