/* dlsym over a vendor's symbol table (tsr_dl.h), for every dlopen'd API. */
#include <dlfcn.h>
#include <string.h>

#include "tsr_dl.h"

const char* tsr_dl_resolve(void* library, const char* names, int count, int required, void* table) {
  for (int i = 0; i < count; ++i, names += strlen(names) + 1) {
    void* fn = dlsym(library, names);
    if (!fn && i < required) return names;
    /* A struct of function pointers, each the size of a data pointer (POSIX dlsym). */
    memcpy((char*)table + (size_t)i * sizeof fn, &fn, sizeof fn);
  }
  return NULL;
}
