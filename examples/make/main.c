/* tesserac example: load kernels from a .tfat archive and launch them.
 *
 * The same archive is opened twice: from the file kernels.tfat (file API)
 * and from the copy linked into this program by `tesserac embed` (memory
 * API). Each time both kernels are loaded (tsr_kernel_load), launched on real
 * data (tsr_kernel_launch) and checked against the plain C references below.
 * The file run uses libtesserart's own thread pool; the embedded run installs
 * an executor of the application's (tsr_set_executor). Then one launch is
 * deliberately wrong, to show that misuse comes back as a status code. Every
 * call's status is checked.
 *
 * usage: ./app [kernels.tfat]      exit status 0 only if every check passed
 *        TSR_NUM_THREADS=4 ./app   the default pool with 4 workers
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tesserart.h"

/* Defined in the object `tesserac embed --symbol example_kernels` writes. */
extern const unsigned char example_kernels[];
extern const size_t example_kernels_size;

/* Shapes fixed by specs/mlp_up_bf16.yaml and specs/rmsnorm_f32.yaml. */
enum { MLP_N = 64, MLP_K = 128, RMS_COLS = 256 };
static const int64_t kTokens = 5;   /* runtime M of the matmul */
static const int64_t kRows = 7;     /* runtime row count of the rmsnorm */
static const float kRmsEps = 1e-6f;

/* ---- bf16 helpers: bf16 is the top half of an IEEE f32 ------------------ */
static float bf16_to_f32(uint16_t bits) {
  uint32_t u = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint16_t f32_to_bf16(float f) {  /* round to nearest even; keeps NaN a NaN */
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* Deterministic inputs in [-1, 1). */
static float next_value(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

static int close_enough(float got, float want, float atol, float rtol) {
  return fabsf(got - want) <= atol + rtol * fabsf(want);
}

/* ---- plain C references ------------------------------------------------- */
static float gelu_tanh(float v) {
  return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

/* c[m,n] = gelu(sum_k a[m,k] * w[n,k] + bias[n]); w is B stored column-major. */
static void mlp_up_reference(const uint16_t* a, const uint16_t* w, const uint16_t* bias, int64_t m_count,
                             float* out) {
  for (int64_t m = 0; m < m_count; ++m)
    for (int n = 0; n < MLP_N; ++n) {
      float acc = 0.0f;
      for (int k = 0; k < MLP_K; ++k) acc += bf16_to_f32(a[m * MLP_K + k]) * bf16_to_f32(w[n * MLP_K + k]);
      out[m * MLP_N + n] = gelu_tanh(acc + bf16_to_f32(bias[n]));
    }
}

static void rmsnorm_reference(const float* x, const float* weight, int64_t rows, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * RMS_COLS;
    double sum_sq = 0.0;
    for (int c = 0; c < RMS_COLS; ++c) sum_sq += (double)row[c] * row[c];
    float inv = 1.0f / sqrtf((float)(sum_sq / RMS_COLS) + kRmsEps);
    for (int c = 0; c < RMS_COLS; ++c) out[r * RMS_COLS + c] = row[c] * inv * weight[c];
  }
}

/* ---- helpers around the runtime ----------------------------------------- */
static int report(const char* what, tsr_status status, const tsr_kernel* kernel) {
  const char* detail = kernel ? tsr_kernel_last_message(kernel) : "";
  fprintf(stderr, "error: %s: %s (%d)%s%s\n", what, tsr_status_string(status), (int)status,
          *detail ? ": " : "", detail);
  return 1;
}

/* ---- the executor: which threads x86 kernels run on -----------------------
 * A kernel splits its work into tasks and hands them to an executor's
 * parallel_for. By default that is libtesserart's thread pool, started on the
 * first launch that needs it, with TSR_NUM_THREADS workers when that variable
 * is set, else one per CPU this process may run on. An application that has
 * its own pool (OpenMP, TBB, its own) installs it with tsr_set_executor
 * instead, so the two do not compete for the same cores. Outputs are
 * bit-identical whatever the executor and its worker count.
 *
 * The smallest correct executor: every task on the calling thread, as worker
 * 0 (so worker_count is 1). It counts what it ran; parallel_for may be called
 * from several threads at once, hence the atomics. A real one would hand the
 * tasks to its workers and return when all have finished. */
typedef struct app_executor {
  atomic_uint_fast64_t calls;
  atomic_uint_fast64_t tasks;
} app_executor;

static void app_parallel_for(void* state, int64_t task_count, tsr_task_fn task, void* arg) {
  app_executor* self = (app_executor*)state;
  atomic_fetch_add(&self->calls, 1);
  for (int64_t t = 0; t < task_count; ++t) task(arg, t, 0);
  atomic_fetch_add(&self->tasks, (uint_fast64_t)task_count);
}

static void print_selection(const char* source, const char* name, const tsr_selection* sel) {
  printf("[%s] %s: ran variant %s:%s via %s\n", source, name, sel->target_kind, sel->arch, sel->route);
}

/* Loads, launches and checks mlp_up_bf16. Returns the number of failures. */
static int run_mlp_up(tsr_archive* archive, const char* source) {
  enum { A = 5 * MLP_K, W = MLP_N * MLP_K, C = 5 * MLP_N };
  static uint16_t a[A], w[W], bias[MLP_N], c[C];
  static float want[C];
  uint32_t seed = 42;
  for (int i = 0; i < A; ++i) a[i] = f32_to_bf16(next_value(&seed));
  for (int i = 0; i < W; ++i) w[i] = f32_to_bf16(0.25f * next_value(&seed));
  for (int i = 0; i < MLP_N; ++i) bias[i] = f32_to_bf16(0.5f * next_value(&seed));
  memset(c, 0xff, sizeof c);  /* NaN bits: an element the kernel skips cannot pass */

  tsr_kernel* kernel = NULL;
  tsr_status st = tsr_kernel_load(archive, "mlp_up_bf16", NULL, &kernel);
  if (st != TSR_OK) return report("load mlp_up_bf16", st, NULL);
  /* Buffers in ABI order: a, b, bias, c; then the runtime scalar tokens. */
  tsr_buffer_arg args[] = {
      {a, sizeof a, TSR_DTYPE_BF16, TSR_ROLE_IN},
      {w, sizeof w, TSR_DTYPE_BF16, TSR_ROLE_IN},
      {bias, sizeof bias, TSR_DTYPE_BF16, TSR_ROLE_IN},
      {c, sizeof c, TSR_DTYPE_BF16, TSR_ROLE_OUT},
  };
  const int64_t scalars[] = {kTokens};
  tsr_selection sel;
  st = tsr_kernel_launch(kernel, args, 4, scalars, 1, &sel);
  if (st != TSR_OK) {
    int rc = report("launch mlp_up_bf16", st, kernel);
    tsr_kernel_unload(kernel);
    return rc;
  }
  print_selection(source, "mlp_up_bf16", &sel);
  tsr_kernel_unload(kernel);

  mlp_up_reference(a, w, bias, kTokens, want);
  int bad = 0;
  float max_err = 0.0f;
  for (int i = 0; i < C; ++i) {
    float got = bf16_to_f32(c[i]);
    float err = fabsf(got - want[i]);
    if (!(err <= max_err)) max_err = err;  /* NaN-safe */
    if (!close_enough(got, want[i], 2e-2f, 1e-2f)) ++bad;
  }
  printf("[%s] mlp_up_bf16: tokens=%lld max_abs_err=%.3g %s\n", source, (long long)kTokens, max_err,
         bad ? "MISMATCH" : "ok");
  return bad ? 1 : 0;
}

/* Loads, launches and checks rmsnorm_rows_f32; then one deliberate misuse. */
static int run_rmsnorm(tsr_archive* archive, const char* source, int show_misuse) {
  enum { X = 7 * RMS_COLS };
  static float x[X], weight[RMS_COLS], y[X], want[X];
  uint32_t seed = 7;
  for (int i = 0; i < X; ++i) x[i] = 3.0f * next_value(&seed);
  for (int i = 0; i < RMS_COLS; ++i) weight[i] = 1.0f + 0.5f * next_value(&seed);
  for (int i = 0; i < X; ++i) y[i] = NAN;

  tsr_kernel* kernel = NULL;
  tsr_status st = tsr_kernel_load(archive, "rmsnorm_rows_f32", NULL, &kernel);
  if (st != TSR_OK) return report("load rmsnorm_rows_f32", st, NULL);
  /* Buffers in ABI order: x, weight, y; then the runtime scalar rows. */
  tsr_buffer_arg args[] = {
      {x, sizeof x, TSR_DTYPE_F32, TSR_ROLE_IN},
      {weight, sizeof weight, TSR_DTYPE_F32, TSR_ROLE_IN},
      {y, sizeof y, TSR_DTYPE_F32, TSR_ROLE_OUT},
  };
  const int64_t scalars[] = {kRows};
  tsr_selection sel;
  int failures = 0;
  st = tsr_kernel_launch(kernel, args, 3, scalars, 1, &sel);
  if (st != TSR_OK) {
    failures += report("launch rmsnorm_rows_f32", st, kernel);
  } else {
    print_selection(source, "rmsnorm_rows_f32", &sel);
    rmsnorm_reference(x, weight, kRows, want);
    int bad = 0;
    float max_err = 0.0f;
    for (int i = 0; i < X; ++i) {
      float err = fabsf(y[i] - want[i]);
      if (!(err <= max_err)) max_err = err;
      if (!close_enough(y[i], want[i], 1e-4f, 1e-4f)) ++bad;
    }
    printf("[%s] rmsnorm_rows_f32: rows=%lld max_abs_err=%.3g %s\n", source, (long long)kRows, max_err,
           bad ? "MISMATCH" : "ok");
    failures += bad ? 1 : 0;
  }

  if (show_misuse) {
    /* Misuse: say y holds one row fewer than rows=7 needs. The stub refuses
     * before anything runs, and y is left untouched. */
    tsr_buffer_arg short_args[3] = {args[0], args[1], args[2]};
    short_args[2].bytes = (size_t)(kRows - 1) * RMS_COLS * sizeof(float);
    float sentinel = y[0];
    st = tsr_kernel_launch(kernel, short_args, 3, scalars, 1, NULL);
    printf("[%s] misuse: rows=%lld with a %lld-row output buffer -> %s (%d): %s\n", source,
           (long long)kRows, (long long)(kRows - 1), tsr_status_string(st), (int)st,
           tsr_kernel_last_message(kernel));
    if (st != TSR_ERROR_BUFFER_TOO_SMALL || memcmp(&sentinel, &y[0], sizeof sentinel) != 0) {
      fprintf(stderr, "error: expected TSR_ERROR_BUFFER_TOO_SMALL and an untouched output\n");
      ++failures;
    }
  }
  tsr_kernel_unload(kernel);
  return failures;
}

static int run_all(tsr_archive* archive, const char* source) {
  tsr_archive_info info;
  tsr_status st = tsr_archive_get_info(archive, &info);
  if (st != TSR_OK) return report("archive info", st, NULL);
  printf("[%s] archive format %u.%u, %zu kernels, %llu bytes; this CPU is x86-64-v%d\n", source,
         (unsigned)info.major, (unsigned)info.minor, info.kernel_count, (unsigned long long)info.file_size,
         tsr_x86_level());
  int failures = run_mlp_up(archive, source);
  failures += run_rmsnorm(archive, source, strcmp(source, "file") == 0);
  return failures;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "kernels.tfat";
  int failures = 0;
  char message[256] = "";
  tsr_open_options options = {0, message, sizeof message};

  /* 1. From the file, on libtesserart's default thread pool: header and
   * index read at open, each blob read and checked on its first use. */
  printf("[file] executor: libtesserart's pool, %u worker(s) (TSR_NUM_THREADS, else the CPU affinity)\n",
         (unsigned)tsr_executor_worker_count());
  tsr_archive* archive = NULL;
  tsr_status st = tsr_archive_open_file(path, &options, &archive);
  if (st != TSR_OK) {
    fprintf(stderr, "error: cannot open %s: %s (%d): %s\n", path, tsr_status_string(st), (int)st, message);
    return 1;
  }
  failures += run_all(archive, "file");
  tsr_archive_close(archive);

  /* 2. From the bytes linked into this program (borrowed, so no copy), on
   * the application's executor. The struct is copied; `app` must outlive the
   * launches that use it, and tsr_set_executor(NULL) goes back to the pool. */
  static app_executor app;
  const tsr_executor executor = {1, app_parallel_for, &app};
  st = tsr_set_executor(&executor);
  if (st != TSR_OK) return report("tsr_set_executor", st, NULL);
  st = tsr_archive_open_memory(example_kernels, example_kernels_size, &options, &archive);
  if (st != TSR_OK) {
    fprintf(stderr, "error: cannot open the embedded archive: %s (%d): %s\n", tsr_status_string(st), (int)st,
            message);
    return 1;
  }
  failures += run_all(archive, "embedded");
  tsr_archive_close(archive);
  printf("[embedded] executor: the application's, %u worker(s); it ran %llu task(s) in %llu parallel_for call(s)\n",
         (unsigned)tsr_executor_worker_count(), (unsigned long long)atomic_load(&app.tasks),
         (unsigned long long)atomic_load(&app.calls));
  st = tsr_set_executor(NULL);
  if (st != TSR_OK) return report("tsr_set_executor(NULL)", st, NULL);

  printf(failures ? "%d check(s) FAILED\n" : "all checks passed\n", failures);
  return failures ? 1 : 0;
}
