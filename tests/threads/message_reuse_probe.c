/* Prints whether an archive opened after closing one, and a kernel loaded
 * after unloading one, start with an empty last message, and whether they
 * got the freed one's address:
 *   archive reused=R message='M'
 *   kernel reused=R message='M'
 * Run by stub_threads_test.cc with glibc's tcache off
 * (GLIBC_TUNABLES=glibc.malloc.tcache_count=0), where calloc hands the
 * freed block straight back, so R is 1: messages must be keyed by owner id,
 * not by address. */
#include <stdio.h>
#include <stdlib.h>

#include "tesserart.h"

int main(int argc, char** argv) {
  static unsigned char bytes[1 << 20];
  FILE* f = argc == 2 ? fopen(argv[1], "rb") : NULL;
  size_t size = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  tsr_archive *first = NULL, *second = NULL;
  tsr_kernel *none = NULL, *k1 = NULL, *k2 = NULL;
  if (!size || tsr_archive_open_memory(bytes, size, NULL, &first) != TSR_OK ||
      tsr_kernel_load(first, "missing", NULL, &none) != TSR_ERROR_NOT_FOUND || !*tsr_archive_last_message(first)) {
    fprintf(stderr, "usage: %s THREADS_ARCHIVE.tfat (the first open or failing load did not go as planned)\n", argv[0]);
    return 2;
  }
  void* old_archive = first;
  tsr_archive_close(first);
  if (tsr_archive_open_memory(bytes, size, NULL, &second) != TSR_OK) return 3;
  printf("archive reused=%d message='%s'\n", (void*)second == old_archive, tsr_archive_last_message(second));
  if (tsr_kernel_load(second, "vadd1", NULL, &k1) != TSR_OK ||
      tsr_kernel_launch(k1, NULL, 3, NULL, 1, NULL) != TSR_ERROR_NULL_ARGUMENT || !*tsr_kernel_last_message(k1))
    return 4;
  void* old_kernel = k1;
  tsr_kernel_unload(k1);
  if (tsr_kernel_load(second, "vadd1", NULL, &k2) != TSR_OK) return 5;
  printf("kernel reused=%d message='%s'\n", (void*)k2 == old_kernel, tsr_kernel_last_message(k2));
  tsr_kernel_unload(k2);
  tsr_archive_close(second);
  return 0;
}
