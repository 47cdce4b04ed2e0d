/* Workspace pools (tesserart_kernel.h: the scratch memory an x86 kernel asks
 * for through E_workspace). Each loaded kernel keeps the blocks its launches
 * used on a free list and hands them out again, so the steady state
 * allocates nothing; concurrent launches each take their own block, and a
 * block is replaced by a larger one only when a launch needs more. */
#include <stdlib.h>

#include "tsr_internal.h"

#define TSR_WS_GRAIN 4096u /* sizes are rounded up to this, so a slowly growing shape reallocates rarely */

void tsr_workspace_pool_destroy(tsr_workspace_pool* pool) {
  for (tsr_workspace_block* b = pool->free; b;) {
    tsr_workspace_block* next = b->next;
    free(b);
    b = next;
  }
  pool->free = NULL;
  pthread_mutex_destroy(&pool->lock);
}

tsr_workspace_block* tsr_workspace_take(tsr_workspace_pool* pool, uint64_t bytes) {
  pthread_mutex_lock(&pool->lock);
  tsr_workspace_block** link = &pool->free;
  while (*link && (*link)->bytes < bytes) link = &(*link)->next;
  /* None large enough: the smallest kind of growth is replacing one block. */
  if (!*link) link = &pool->free;
  tsr_workspace_block* block = *link;
  if (block) *link = block->next;
  pthread_mutex_unlock(&pool->lock);
  if (block && block->bytes >= bytes) return block;
  free(block);
  uint64_t size;
  if (!tsr_add_u64(bytes, TSR_WS_GRAIN - 1 + TSR_WS_HEADER, &size) || size > SIZE_MAX) return NULL;
  size &= ~(uint64_t)(TSR_WS_GRAIN - 1);
  block = (tsr_workspace_block*)aligned_alloc(64, (size_t)size);
  if (!block) return NULL;
  block->bytes = size - TSR_WS_HEADER;
  __atomic_fetch_add(&pool->allocations, 1, __ATOMIC_RELAXED);
  return block;
}
