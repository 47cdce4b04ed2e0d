/* The executor x86 kernels split their work with (tesserart.h, "Executor";
 * docs/runtime.md): the one the application installed with
 * tsr_set_executor, else the default pool.
 *
 * The default pool: TSR_NUM_THREADS workers (1..1024) or one per CPU of the
 * process's affinity mask, the calling thread being worker 0, so it starts
 * size - 1 pthreads, once, on the first parallel_for with more than one
 * task. One parallel_for owns the pool at a time; one that finds it busy
 * (another thread's launch, or a task launching a kernel) runs its tasks on
 * the calling thread, which a kernel cannot tell from a one-worker pool. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>

#include "tsr_executor.h"

#define TSR_MAX_THREADS 1024u

/* ---- pool size ------------------------------------------------------------ */

uint32_t tsr_num_threads_setting(const char* value, uint32_t fallback) {
  if (!value || !*value) return fallback;
  uint32_t n = 0;
  for (const char* p = value; *p; ++p) {
    if (*p < '0' || *p > '9' || n > TSR_MAX_THREADS) return fallback;
    n = n * 10u + (uint32_t)(*p - '0');
  }
  return n >= 1 && n <= TSR_MAX_THREADS ? n : fallback;
}

/* CPUs this process may run on (1 if the mask cannot be read). */
static uint32_t affinity_count(void) {
  cpu_set_t set;
  int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  return n < 1 ? 1u : n > (int)TSR_MAX_THREADS ? TSR_MAX_THREADS : (uint32_t)n;
}

static pthread_once_t size_once = PTHREAD_ONCE_INIT;
static uint32_t pool_size = 1;

static void read_pool_size(void) { pool_size = tsr_num_threads_setting(getenv("TSR_NUM_THREADS"), affinity_count()); }

static uint32_t default_worker_count(void) {
  pthread_once(&size_once, read_pool_size);
  return pool_size;
}

/* ---- the pool ------------------------------------------------------------- */

/* The current job is read under `lock` by a worker that saw a new
 * generation; it then counts itself in `active` until it has claimed its
 * last task. A job is published only when no worker is active, so a worker
 * never claims a task of one job with another job's function. */
static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;   /* generation changed */
  pthread_cond_t idle;   /* active dropped to 0 */
  uint64_t generation;
  uint32_t active;
  tsr_task_fn task;
  void* arg;
  int64_t count;
  int64_t next;          /* next unclaimed task: __atomic */
  int busy;              /* a parallel_for owns the pool: __atomic */
  uint32_t started;      /* threads running, worker indexes 1..started */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL, NULL, 0, 0, 0, 0};

static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void claim_tasks(tsr_task_fn task, void* arg, int64_t count, uint32_t worker) {
  for (int64_t t; (t = __atomic_fetch_add(&pool.next, 1, __ATOMIC_RELAXED)) < count;) task(arg, t, worker);
}

static void* worker_main(void* p) {
  const uint32_t worker = (uint32_t)(uintptr_t)p;
  uint64_t seen = 0;
  pthread_mutex_lock(&pool.lock);
  for (;;) {
    while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.lock);
    seen = pool.generation;
    tsr_task_fn task = pool.task;
    void* arg = pool.arg;
    int64_t count = pool.count;
    ++pool.active;
    pthread_mutex_unlock(&pool.lock);
    claim_tasks(task, arg, count, worker);
    pthread_mutex_lock(&pool.lock);
    if (--pool.active == 0) pthread_cond_broadcast(&pool.idle);
  }
  return NULL;
}

/* A forked child has none of the threads: it runs every task itself. */
static void forget_threads(void) {
  pool.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  pool.wake = pool.idle = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
  pool.active = 0;
  pool.started = 0;
  pool.busy = 0;
}

static void start_threads(void) {
  pthread_atfork(NULL, NULL, forget_threads);
  /* Signals stay with the application's threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  /* The threads live as long as the process: nothing ever joins them. */
  uint32_t started = 0;
  for (uint32_t w = 1; w < default_worker_count(); ++w) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker_main, (void*)(uintptr_t)w) != 0) break;
    started = w;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pool.started = started;
}

static void pool_parallel_for(void* state, int64_t count, tsr_task_fn task, void* arg) {
  (void)state;
  if (count <= 0) return;
  if (count == 1 || default_worker_count() == 1 || __atomic_exchange_n(&pool.busy, 1, __ATOMIC_ACQUIRE)) {
    for (int64_t t = 0; t < count; ++t) task(arg, t, 0);
    return;
  }
  pthread_once(&start_once, start_threads);
  pthread_mutex_lock(&pool.lock);
  while (pool.active > 0) pthread_cond_wait(&pool.idle, &pool.lock);
  pool.task = task;
  pool.arg = arg;
  pool.count = count;
  __atomic_store_n(&pool.next, 0, __ATOMIC_RELAXED);
  if (pool.started > 0) {
    ++pool.generation;
    pthread_cond_broadcast(&pool.wake);
  }
  pthread_mutex_unlock(&pool.lock);
  claim_tasks(task, arg, count, 0);
  /* Every task claimed by a worker has finished once no worker is active. */
  pthread_mutex_lock(&pool.lock);
  while (pool.active > 0) pthread_cond_wait(&pool.idle, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  __atomic_store_n(&pool.busy, 0, __ATOMIC_RELEASE);
}

/* ---- the installed executor ----------------------------------------------- */

/* A sequence lock: launches read it without a lock; seq is odd while
 * tsr_set_executor writes. parallel_for NULL: the default pool. Fields are
 * stored with release and loaded with acquire (free on x86), which orders
 * them against seq without fences (ThreadSanitizer does not model fences). */
static struct {
  uint32_t seq;
  uint32_t worker_count;
  tsr_parallel_for_fn parallel_for;
  void* state;
} installed;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

tsr_status tsr_set_executor(const tsr_executor* executor) {
  if (executor && (executor->worker_count == 0 || !executor->parallel_for)) return TSR_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&install_lock);
  const uint32_t seq = installed.seq;
  __atomic_store_n(&installed.seq, seq + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&installed.worker_count, executor ? executor->worker_count : 0, __ATOMIC_RELEASE);
  __atomic_store_n(&installed.parallel_for, executor ? executor->parallel_for : NULL, __ATOMIC_RELEASE);
  __atomic_store_n(&installed.state, executor ? executor->state : NULL, __ATOMIC_RELEASE);
  __atomic_store_n(&installed.seq, seq + 2, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&install_lock);
  return TSR_OK;
}

void tsr_executor_current(tsr_executor* out) {
  for (;;) {
    const uint32_t seq = __atomic_load_n(&installed.seq, __ATOMIC_ACQUIRE);
    out->worker_count = __atomic_load_n(&installed.worker_count, __ATOMIC_ACQUIRE);
    out->parallel_for = __atomic_load_n(&installed.parallel_for, __ATOMIC_ACQUIRE);
    out->state = __atomic_load_n(&installed.state, __ATOMIC_ACQUIRE);
    if (!(seq & 1u) && __atomic_load_n(&installed.seq, __ATOMIC_RELAXED) == seq) break;
  }
  if (!out->parallel_for) {
    out->worker_count = default_worker_count();
    out->parallel_for = pool_parallel_for;
    out->state = NULL;
  }
}

uint32_t tsr_executor_worker_count(void) {
  tsr_executor e;
  tsr_executor_current(&e);
  return e.worker_count;
}
