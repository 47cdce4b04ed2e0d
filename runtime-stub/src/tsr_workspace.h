/* Internal interface of workspace.c: a loaded x86 kernel's reusable scratch
 * blocks. */
#ifndef TSR_WORKSPACE_H
#define TSR_WORKSPACE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* A block: this header, then its bytes at the next 64-byte boundary. */
typedef struct tsr_workspace_block {
  struct tsr_workspace_block* next;
  uint64_t bytes;
} tsr_workspace_block;
#define TSR_WS_HEADER 64u

typedef struct tsr_workspace_pool {
  pthread_mutex_t lock;
  tsr_workspace_block* free; /* blocks no launch holds */
  uint64_t allocations;      /* blocks allocated so far: __atomic */
} tsr_workspace_pool;

static inline void tsr_workspace_pool_init(tsr_workspace_pool* pool) {
  pthread_mutex_init(&pool->lock, NULL);
  pool->free = NULL;
  pool->allocations = 0;
}
/* Frees the free blocks: call when no launch holds one. */
void tsr_workspace_pool_destroy(tsr_workspace_pool* pool);
/* A block of at least `bytes` (> 0), 64-byte aligned, for one launch: a free
 * one, else a new one (replacing a free block that was too small). NULL when
 * memory runs out. */
tsr_workspace_block* tsr_workspace_take(tsr_workspace_pool* pool, uint64_t bytes);
static inline void tsr_workspace_give(tsr_workspace_pool* pool, tsr_workspace_block* block) {
  pthread_mutex_lock(&pool->lock);
  block->next = pool->free;
  pool->free = block;
  pthread_mutex_unlock(&pool->lock);
}
static inline void* tsr_workspace_data(tsr_workspace_block* block) { return (char*)block + TSR_WS_HEADER; }
/* For tests: blocks allocated by this pool so far (0 more in a steady state). */
static inline uint64_t tsr_workspace_allocations(const tsr_workspace_pool* pool) {
  return __atomic_load_n(&pool->allocations, __ATOMIC_RELAXED);
}

#endif /* TSR_WORKSPACE_H */
