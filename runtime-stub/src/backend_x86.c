/* x86 backend: shared objects following the x86 kernel ABI v2
 * (tesserart_kernel.h; System V x86-64 psABI), exporting
 *   void E(const tsr_kernel_context* ctx, void* const* buffers, const int64_t* scalars)
 *   uint64_t E_workspace(const int64_t* scalars, uint32_t worker_count)
 * The blob goes to a memfd (or an unlinked temporary file where
 * memfd_create is unavailable) and is dlopen'ed from /proc/self/fd/N (or the
 * temporary file's name), so nothing is left on disk.
 *
 * glibc's dlopen returns an already loaded library when the path string
 * matches one in the link map, without looking at the file. The fd is
 * therefore kept open for as long as the library is loaded: no other load
 * can get the same N, and so the same path, while this one lives.
 *
 * A launch takes the executor current at its start (executor.c) and, when
 * E_workspace asks for any, a block of the kernel's workspace pool
 * (workspace.c); a kernel needing none costs no lock. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tsr_cpu_x86.h"
#include "tsr_executor.h"
#include "tsr_internal.h"
#include "tsr_route.h"

typedef void (*tsr_x86_entry)(const tsr_kernel_context* ctx, void* const* buffers, const int64_t* scalars);
typedef uint64_t (*tsr_x86_workspace_fn)(const int64_t* scalars, uint32_t worker_count);

int tsr_x86_level(void) { return tsr_x86_features() & 0xff; }

/* "v3" -> 6, "v4+amx" -> 9, anything else -> -1. */
static int arch_score(const char* arch) {
  if (arch[0] != 'v' || arch[1] < '1' || arch[1] > '4') return -1;
  int level = arch[1] - '0';
  if (arch[2] == 0) return level * 2;
  if (strcmp(arch + 2, "+amx") == 0) return level * 2 + 1;
  return -1;
}

/* The highest level this CPU (or options->x86_level) runs; "+amx" only where
 * the OS also lets this process use tile data. */
static tsr_status x86_select(const tsr_archive* a, size_t kernel, const tsr_select_options* o,
                             size_t* out_variant, const char** out_route) {
  int feat = o && o->x86_level ? o->x86_level : tsr_x86_features();
  int level = feat & 0xff, amx = feat >> 8 & 1;
  if (level <= 0) return TSR_ERROR_NO_DEVICE;
  tsr_kernel_info ki;
  if (tsr_archive_kernel_at(a, kernel, &ki) != TSR_OK) return TSR_ERROR_CORRUPT;
  long best = -1;
  int best_score = -1;
  for (size_t v = 0; v < ki.variant_count; ++v) {
    tsr_variant_info vi;
    if (tsr_kernel_variant_at(a, kernel, v, &vi) != TSR_OK) continue;
    if (strcmp(vi.target_kind, "x86") != 0 || vi.artifact_kind != TSR_ARTIFACT_SHARED_OBJECT ||
        !tsr_select_wants_variant(o, a, kernel, v, vi.arch))
      continue;
    int score = arch_score(vi.arch);
    /* an AMX variant only with the process's permission, asked here, before its first launch */
    if (score < 0 || score / 2 > level || ((score & 1) && !(amx && tsr_x86_amx_permitted()))) continue;
    if (score > best_score) {
      best_score = score;
      best = (long)v;
    }
  }
  if (best < 0) return TSR_ERROR_NO_VARIANT;
  *out_variant = (size_t)best;
  *out_route = "memfd+dlopen";
  return TSR_OK;
}

static int write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return 0;
    p += w;
    n -= (size_t)w;
  }
  return 1;
}

static int open_scratch(int scratch, char* path, size_t path_size) {
#ifdef MFD_CLOEXEC
  if (scratch == TSR_X86_SCRATCH_MEMFD) {
    int fd = memfd_create("tesserac-kernel", MFD_CLOEXEC);
    if (fd >= 0) {
      snprintf(path, path_size, "/proc/self/fd/%d", fd);
      return fd;
    }
  }
#endif
  const char* dir = getenv("TMPDIR");
  snprintf(path, path_size, "%s/tesserac-kernel-XXXXXX", dir && *dir ? dir : "/tmp");
  return mkostemp(path, O_CLOEXEC);
}

/* dlsym of `name`, or NULL with msg naming the missing symbol. */
static void* find_symbol(void* handle, const char* name, char* msg, size_t msg_size) {
  void* p = dlsym(handle, name);
  if (!p) tsr_set_message(msg, msg_size, "x86 artifact does not export '%s'", name);
  return p;
}

tsr_status tsr_x86_load_with(int scratch, const void* blob, size_t size, const char* entry,
                             tsr_x86_loaded* out, char* msg, size_t msg_size) {
  out->handle = out->function = out->workspace_size = NULL;
  out->route = NULL;
  out->fd = -1;
  tsr_workspace_pool_init(&out->workspace);
  char path[PATH_MAX];
  int fd = open_scratch(scratch, path, sizeof path);
  if (fd < 0) {
    tsr_set_message(msg, msg_size, "cannot create a scratch file for the kernel: %s", strerror(errno));
    tsr_workspace_pool_destroy(&out->workspace);
    return TSR_ERROR_LOAD_FAILED;
  }
  int is_tmp = strncmp(path, "/proc/", 6) != 0;
  void* handle = NULL;
  if (write_all(fd, (const uint8_t*)blob, size)) handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char* why = handle ? NULL : dlerror();
  /* The unlinked file lives on while fd (and the mapping) hold it, so its
   * inode cannot be reused for another load either. */
  if (is_tmp) unlink(path);
  if (!handle) {
    close(fd);
    tsr_set_message(msg, msg_size, "dlopen of the x86 artifact failed: %s", why ? why : "write failed");
    tsr_workspace_pool_destroy(&out->workspace);
    return TSR_ERROR_LOAD_FAILED;
  }
  out->handle = handle;
  out->fd = fd;
  /* Both exports of the ABI: an artifact of the first ABI has no E_workspace,
   * and calling its E with a context would pass the wrong arguments. */
  size_t length = strlen(entry);
  char* workspace_name = (char*)malloc(length + sizeof "_workspace");
  out->function = find_symbol(handle, entry, msg, msg_size);
  if (out->function && workspace_name) {
    memcpy(workspace_name, entry, length);
    memcpy(workspace_name + length, "_workspace", sizeof "_workspace");
    out->workspace_size = find_symbol(handle, workspace_name, msg, msg_size);
  }
  free(workspace_name);
  if (!out->workspace_size) {
    tsr_x86_unload_loaded(out);
    return TSR_ERROR_LOAD_FAILED;
  }
  return TSR_OK;
}

tsr_status tsr_x86_call(tsr_x86_loaded* l, void* const* buffers, const int64_t* scalars, char* msg,
                        size_t msg_size) {
  return tsr_x86_call_entry(l, l->function, l->workspace_size, buffers, scalars, msg, msg_size);
}

tsr_status tsr_x86_call_entry(tsr_x86_loaded* l, void* function, void* workspace_fn, void* const* buffers,
                              const int64_t* scalars, char* msg, size_t msg_size) {
  tsr_x86_entry entry;
  tsr_x86_workspace_fn workspace_size;
  memcpy(&entry, &function, sizeof entry);   /* object-to-function pointers, as dlsym requires */
  memcpy(&workspace_size, &workspace_fn, sizeof workspace_size);
  tsr_executor e;
  tsr_executor_current(&e);
  tsr_kernel_context ctx = {TSR_KERNEL_ABI_VERSION, e.worker_count, e.parallel_for, e.state, NULL, 0};
  const uint64_t bytes = workspace_size(scalars, e.worker_count);
  tsr_workspace_block* block = NULL;
  if (bytes) {
    if (!(block = tsr_workspace_take(&l->workspace, bytes))) {
      tsr_set_message(msg, msg_size, "no memory for %llu bytes of workspace", (unsigned long long)bytes);
      return TSR_ERROR_OUT_OF_MEMORY;
    }
    ctx.workspace = tsr_workspace_data(block);
    ctx.workspace_bytes = block->bytes;
  }
  entry(&ctx, buffers, scalars);
  if (block) tsr_workspace_give(&l->workspace, block);
  return TSR_OK;
}

/* A library dlclose cannot unload (linked with -z nodelete, or holding a
 * unique symbol) stays in the link map under its path. Its fd then stays
 * open for good, so no later load is handed this library under a reused
 * /proc/self/fd/N; its pages were never going to be freed anyway. */
void tsr_x86_unload_loaded(tsr_x86_loaded* l) {
  char name[PATH_MAX] = "";
  struct link_map* map = NULL;
  if (l->handle && dlinfo(l->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    snprintf(name, sizeof name, "%s", map->l_name);
  if (l->handle) dlclose(l->handle);
  void* resident = name[0] ? dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD) : NULL;
  if (resident) dlclose(resident);
  else if (l->fd >= 0) close(l->fd);
  l->handle = l->function = l->workspace_size = NULL;
  l->fd = -1;
  tsr_workspace_pool_destroy(&l->workspace);
}

static tsr_status x86_load(struct tsr_kernel* k, const void* blob, size_t size,
                           const tsr_variant_info* vi, char* msg, size_t msg_size) {
  tsr_x86_loaded* l = (tsr_x86_loaded*)calloc(1, sizeof *l);
  if (!l) return TSR_ERROR_OUT_OF_MEMORY;
  tsr_status s = tsr_x86_load_with(TSR_X86_SCRATCH_MEMFD, blob, size, vi->entry, l, msg, msg_size);
  if (s != TSR_OK) {
    free(l);
    return s;
  }
  /* Format 2.3: the variant's route, every entry step's symbols found now. */
  s = tsr_route_load(k, k->selection.variant, l->handle, vi->entry, l->function, l->workspace_size, &l->route,
                     msg, msg_size);
  if (s != TSR_OK) {
    tsr_x86_unload_loaded(l);
    free(l);
    return s;
  }
  k->backend_state = l;
  return TSR_OK;
}

static tsr_status x86_launch(struct tsr_kernel* k, const tsr_launch_args* args, char* msg,
                             size_t msg_size) {
  tsr_x86_loaded* l = (tsr_x86_loaded*)k->backend_state;
  const tsr_route_step* step;
  tsr_status s = tsr_route_pick(l->route, args->scalars, &step, msg, msg_size);
  if (s != TSR_OK) return s;
  if (step->delegate) return tsr_delegate_call(step->delegate, args->host, args->scalars, msg, msg_size);
  return tsr_x86_call_entry(l, step->function, step->workspace_size, args->host, args->scalars, msg, msg_size);
}

static void x86_unload(struct tsr_kernel* k) {
  tsr_x86_loaded* l = (tsr_x86_loaded*)k->backend_state;
  if (!l) return;
  tsr_route_free(l->route);
  tsr_x86_unload_loaded(l);
  free(l);
  k->backend_state = NULL;
}

const tsr_backend tsr_backend_x86 = {
    "x86", "tsr_kernel_launch", 0, x86_select, x86_load, x86_launch, x86_unload,
};
