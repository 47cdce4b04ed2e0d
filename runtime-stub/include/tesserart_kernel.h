/* tesserart_kernel.h — the x86 kernel ABI, version 2: what libtesserart
 * passes to the entry point of an x86 kernel, and what a kernel exports.
 *
 * This header is the single definition of the ABI. The stub includes it, and
 * the compiler pastes its text (between the TSR_KERNEL_ABI markers) into every
 * generated x86 kernel, so both sides are compiled from the same bytes. It
 * needs only <stdint.h> and <stddef.h>.
 *
 * An x86 variant whose archive `entry` is E exports two functions (System V
 * AMD64 psABI, default visibility):
 *
 *   void E(const tsr_kernel_context* ctx, void* const* buffers,
 *          const int64_t* scalars);
 *     buffers: data pointers in ABI order (inputs, then outputs); scalars:
 *     runtime scalars in ABI order. Called only after the stub validated the
 *     launch against the recorded ABI, and never for an empty problem (every
 *     output has zero elements).
 *
 *   uint64_t E_workspace(const int64_t* scalars, uint32_t worker_count);
 *     bytes of scratch memory E needs for these scalars when its tasks may be
 *     spread over worker_count workers (0: none). Pure: the same arguments
 *     give the same answer. The stub calls it before each launch and hands E
 *     at least that many bytes in ctx->workspace.
 *
 * Results must not depend on worker_count or on the order tasks run in: the
 * split of the work into tasks and the reduction order of every output
 * element are fixed by the shape alone (bit-identical outputs for any number
 * of workers).
 */
#ifndef TESSERART_KERNEL_H
#define TESSERART_KERNEL_H

/* TSR_KERNEL_ABI_BEGIN */
#include <stddef.h>
#include <stdint.h>

#define TSR_KERNEL_ABI_VERSION 2

/* One task of a parallel_for: `task` in [0, task_count), `worker` in
 * [0, worker_count). Two tasks with the same worker index never run at the
 * same time, so a kernel may give each worker its own slice of workspace. */
typedef void (*tsr_task_fn)(void* arg, int64_t task, uint32_t worker);

/* Runs task(arg, t, w) exactly once for every t in [0, task_count), and
 * returns when all have finished. May run them on the calling thread. */
typedef void (*tsr_parallel_for_fn)(void* executor_state, int64_t task_count, tsr_task_fn task,
                                    void* arg);

typedef struct tsr_kernel_context {
  uint32_t abi_version;             /* TSR_KERNEL_ABI_VERSION */
  uint32_t worker_count;            /* >= 1: worker indexes range over [0, worker_count) */
  tsr_parallel_for_fn parallel_for; /* never NULL */
  void* executor_state;             /* first argument of parallel_for */
  void* workspace;                  /* 64-byte aligned; NULL when workspace_bytes is 0 */
  uint64_t workspace_bytes;         /* >= what E_workspace returned for this launch */
} tsr_kernel_context;
/* TSR_KERNEL_ABI_END */

#endif /* TESSERART_KERNEL_H */
