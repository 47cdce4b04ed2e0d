/* x86 backend: shared objects exporting
 *   void <entry>(void* const* buffers, const int64_t* scalars)
 * (System V x86-64 psABI). The blob goes to a memfd (or an unlinked
 * temporary file where memfd_create is unavailable) and is dlopen'ed from
 * /proc/self/fd/N, so nothing is left on disk. */
#include <dlfcn.h>
#include <errno.h>
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

static int open_scratch(char* path, size_t path_size) {
#ifdef MFD_CLOEXEC
  int fd = memfd_create("tesserac-kernel", MFD_CLOEXEC);
  if (fd >= 0) {
    snprintf(path, path_size, "/proc/self/fd/%d", fd);
    return fd;
  }
#endif
  const char* dir = getenv("TMPDIR");
  snprintf(path, path_size, "%s/tesserac-kernel-XXXXXX", dir && *dir ? dir : "/tmp");
  return mkstemp(path);
}

tsr_status tsr_x86_load(const void* blob, size_t size, const char* entry, tsr_loaded* out,
                        char* msg, size_t msg_size) {
  char path[512];
  int fd = open_scratch(path, sizeof path);
  if (fd < 0) {
    tsr_set_message(msg, msg_size, "cannot create a scratch file for the kernel: %s", strerror(errno));
    return TSR_ERROR_LOAD_FAILED;
  }
  int is_tmp = strncmp(path, "/proc/", 6) != 0;
  void* handle = NULL;
  if (write_all(fd, (const uint8_t*)blob, size)) handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char* why = handle ? NULL : dlerror();
  if (is_tmp) unlink(path);
  close(fd);
  if (!handle) {
    tsr_set_message(msg, msg_size, "dlopen of the x86 artifact failed: %s", why ? why : "write failed");
    return TSR_ERROR_LOAD_FAILED;
  }
  void* fn = dlsym(handle, entry);
  if (!fn) {
    tsr_set_message(msg, msg_size, "x86 artifact does not export '%s'", entry);
    dlclose(handle);
    return TSR_ERROR_LOAD_FAILED;
  }
  out->handle = handle;
  out->function = fn;
  out->backend = TSR_BACKEND_X86;
  return TSR_OK;
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

void tsr_x86_unload(tsr_loaded* l) {
  if (l->handle) dlclose(l->handle);
  l->handle = l->function = NULL;
}
