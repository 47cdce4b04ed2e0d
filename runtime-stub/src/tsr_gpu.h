/* What the GPU backends (cuda, hip) share: the launch metadata the compile
 * step records per variant (<kind>.block, <kind>.grid, <kind>.shared_bytes;
 * docs/targets-cuda.md, docs/targets-hip.md) and its evaluation at launch
 * with the one geometry evaluator (tsr_cuda_eval_triple). */
#ifndef TSR_GPU_H
#define TSR_GPU_H

#include "tsr_internal.h"

/* The variant's launch metadata: block and grid texts (archive strings) and
 * the dynamic shared memory in bytes (0 when absent, at most 2^31-1).
 * TSR_ERROR_CORRUPT with "<kind> variant has ..." in msg otherwise. */
tsr_status tsr_gpu_launch_metadata(const tsr_archive* a, size_t kernel, size_t variant, const char* kind,
                                   const char** out_block, const char** out_grid, unsigned* out_shared,
                                   char* msg, size_t msg_size);

/* Block and grid for one launch's scalars (names in ABI order). A grid past
 * the limits for these sizes is TSR_ERROR_INVALID_SCALAR, anything else
 * wrong TSR_ERROR_CORRUPT, each with the message naming the text. */
tsr_status tsr_gpu_launch_dims(const struct tsr_kernel* k, const char* kind, const char* block_text,
                               const char* grid_text, const char* const* scalar_names,
                               const tsr_launch_args* args, unsigned block[3], unsigned grid[3], char* msg,
                               size_t msg_size);

/* The kernel's runtime scalar names in ABI order (one allocation, at least
 * one element; the strings are the archive's), or NULL out of memory. */
const char** tsr_gpu_scalar_names(const struct tsr_kernel* k);

#endif /* TSR_GPU_H */
