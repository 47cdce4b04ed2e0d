/* Internal interface of workspace.c: a loaded x86 kernel's reusable scratch
 * blocks. */
#ifndef TSR_WORKSPACE_H
#define TSR_WORKSPACE_H

#include <pthread.h>
#include <stdint.h>

typedef struct tsr_workspace_block tsr_workspace_block;

typedef struct tsr_workspace_pool {
  pthread_mutex_t lock;
  tsr_workspace_block* free; /* blocks no launch holds */
  uint64_t allocations;      /* blocks allocated so far: __atomic */
} tsr_workspace_pool;

void tsr_workspace_pool_init(tsr_workspace_pool* pool);
/* Frees the free blocks: call when no launch holds one. */
void tsr_workspace_pool_destroy(tsr_workspace_pool* pool);
/* A block of at least `bytes` (> 0), 64-byte aligned, for one launch: a free
 * one, else a new one (replacing a free block that was too small). NULL when
 * memory runs out. */
tsr_workspace_block* tsr_workspace_take(tsr_workspace_pool* pool, uint64_t bytes);
void tsr_workspace_give(tsr_workspace_pool* pool, tsr_workspace_block* block);
void* tsr_workspace_data(tsr_workspace_block* block);
uint64_t tsr_workspace_bytes(const tsr_workspace_block* block);
/* For tests: blocks allocated by this pool so far (0 more in a steady state). */
uint64_t tsr_workspace_allocations(const tsr_workspace_pool* pool);

#endif /* TSR_WORKSPACE_H */
