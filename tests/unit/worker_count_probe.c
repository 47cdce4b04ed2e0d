/* Prints what a fresh process's default pool looks like under its
 * environment (TSR_NUM_THREADS): "workers W indexes I", W the worker count
 * launches get and I how many distinct worker indexes 256 tasks ran on
 * (at most W). Run by executor_test.cc; the pool's size is read once per
 * process, so each setting needs a process of its own. */
#include <stdio.h>

#include "tsr_executor.h"

static int seen[1024];

static void record(void* arg, int64_t task, uint32_t worker) {
  (void)arg;
  (void)task;
  if (worker < 1024) __atomic_store_n(&seen[worker], 1, __ATOMIC_RELAXED);
  for (volatile int spin = 0; spin < 20000; ++spin) {
  }
}

int main(void) {
  tsr_executor e;
  tsr_executor_current(&e);
  e.parallel_for(e.state, 256, record, NULL);
  int indexes = 0;
  for (int w = 0; w < 1024; ++w) indexes += seen[w];
  printf("workers %u indexes %d\n", tsr_executor_worker_count(), indexes);
  return 0;
}
