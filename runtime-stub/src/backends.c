/* The stub's backends, in selection preference order: a kernel runs on the
 * first kind that has a fitting variant and a present device. Adding a
 * target is one backend file and one row here (docs/adding-a-target.md).
 * A backend built out of the stub (TESSERAC_STUB_CUDA, _HIP, _XRT off)
 * keeps its row: backend_absent.c's stands in and finds no device. */
#include "tsr_gpu.h"

const tsr_backend* const tsr_backends[] = {
    &tsr_gpu_cuda.backend,
    &tsr_gpu_hip.backend,
    &tsr_backend_xdna,
    &tsr_backend_x86,
};
const size_t tsr_backend_count = sizeof tsr_backends / sizeof tsr_backends[0];

const tsr_backend* tsr_backend_for_kind(const char* kind) {
  for (size_t b = 0; b < tsr_backend_count; ++b)
    if (strcmp(tsr_backends[b]->kind, kind) == 0) return tsr_backends[b];
  return NULL;
}
