/* Internal interface of executor.c (the default pool and tsr_set_executor),
 * used by the x86 backend and by tests. */
#ifndef TSR_EXECUTOR_H
#define TSR_EXECUTOR_H

#include <stdint.h>

#include "tesserart.h"

/* The executor a launch starting now runs on: the installed one, else the
 * default pool (whose size this fixes, without starting it). Lock-free. */
void tsr_executor_current(tsr_executor* out);

/* TSR_NUM_THREADS as the default pool reads it: a decimal number 1..1024
 * written with digits only; anything else (unset, empty, 0, 1025, "-2",
 * " 4", "4x", "0x10") gives `fallback`, the affinity count. */
uint32_t tsr_num_threads_setting(const char* value, uint32_t fallback);

#endif /* TSR_EXECUTOR_H */
