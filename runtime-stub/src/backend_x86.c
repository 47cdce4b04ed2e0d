/* x86 backend: shared objects exporting
 *   void <entry>(void* const* buffers, const int64_t* scalars)
 * (System V x86-64 psABI). The blob goes to a memfd (or an unlinked
 * temporary file where memfd_create is unavailable) and is dlopen'ed from
 * /proc/self/fd/N (or the temporary file's name), so nothing is left on disk.
 *
 * glibc's dlopen returns an already loaded library when the path string
 * matches one in the link map, without looking at the file. The fd is
 * therefore kept open for as long as the library is loaded: no other load
 * can get the same N, and so the same path, while this one lives. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tsr_internal.h"

typedef void (*tsr_x86_entry)(void* const* buffers, const int64_t* scalars);

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

tsr_status tsr_x86_load_with(int scratch, const void* blob, size_t size, const char* entry,
                             tsr_loaded* out, char* msg, size_t msg_size) {
  char path[PATH_MAX];
  int fd = open_scratch(scratch, path, sizeof path);
  if (fd < 0) {
    tsr_set_message(msg, msg_size, "cannot create a scratch file for the kernel: %s", strerror(errno));
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
    return TSR_ERROR_LOAD_FAILED;
  }
  void* fn = dlsym(handle, entry);
  if (!fn) {
    tsr_set_message(msg, msg_size, "x86 artifact does not export '%s'", entry);
    out->handle = handle;
    out->fd = fd;
    tsr_x86_unload(out);
    return TSR_ERROR_LOAD_FAILED;
  }
  out->handle = handle;
  out->function = fn;
  out->fd = fd;
  out->backend = TSR_BACKEND_X86;
  return TSR_OK;
}

tsr_status tsr_x86_load(const void* blob, size_t size, const char* entry, tsr_loaded* out,
                        char* msg, size_t msg_size) {
  return tsr_x86_load_with(TSR_X86_SCRATCH_MEMFD, blob, size, entry, out, msg, msg_size);
}

tsr_status tsr_x86_launch(const tsr_loaded* l, const tsr_launch_args* args) {
  void* small[16] = {0};
  void** ptrs = args->buffer_count <= 16 ? small : (void**)malloc(args->buffer_count * sizeof(void*));
  if (!ptrs) return TSR_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < args->buffer_count; ++i) ptrs[i] = args->buffers[i].data;
  tsr_x86_entry fn;
  memcpy(&fn, &l->function, sizeof fn);   /* object-to-function pointer, as dlsym requires */
  fn(ptrs, args->scalars);
  if (ptrs != small) free(ptrs);
  return TSR_OK;
}

/* A library dlclose cannot unload (linked with -z nodelete, or holding a
 * unique symbol) stays in the link map under its path. Its fd then stays
 * open for good, so no later load is handed this library under a reused
 * /proc/self/fd/N; its pages were never going to be freed anyway. */
void tsr_x86_unload(tsr_loaded* l) {
  char name[PATH_MAX] = "";
  struct link_map* map = NULL;
  if (l->handle && dlinfo(l->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    snprintf(name, sizeof name, "%s", map->l_name);
  if (l->handle) dlclose(l->handle);
  void* resident = name[0] ? dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD) : NULL;
  if (resident) dlclose(resident);
  else if (l->fd >= 0) close(l->fd);
  l->handle = l->function = NULL;
  l->fd = -1;
}
