/* x86-64 psABI level detection: cpuid bits per level (x86-64 psABI §3.1.1,
 * Intel SDM vol. 2A "CPUID") and, for AVX and AVX-512, that the OS saves
 * the register state (XCR0 through xgetbv, only where OSXSAVE says it may
 * be executed). AMX also needs the process's permission for tile data
 * (Linux Documentation/arch/x86/xstate.rst), asked once. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tsr_cpu_x86.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

enum { EAX, EBX, ECX, EDX, XCR0 };

/* Names inline and narrow fields: 24 bytes a row in .rodata instead of 32
 * in .data.rel.ro plus a relocation per name (the stub's 64 KiB budget). */
typedef struct feature {
  char name[13];
  uint8_t level;         /* 2..4; 5 = AMX */
  uint8_t reg;           /* EBX/ECX/EDX, or XCR0 */
  uint32_t leaf;         /* cpuid leaf (subleaf 0) */
  uint32_t mask;         /* bit(s) that must all be set */
} feature;

static const feature kFeatures[] = {
    {"sse3", 2, ECX, 1, 1u << 0},          {"ssse3", 2, ECX, 1, 1u << 9},
    {"cx16", 2, ECX, 1, 1u << 13},         {"sse4.1", 2, ECX, 1, 1u << 19},
    {"sse4.2", 2, ECX, 1, 1u << 20},       {"popcnt", 2, ECX, 1, 1u << 23},
    {"lahf", 2, ECX, 0x80000001u, 1u << 0},
    {"avx", 3, ECX, 1, 1u << 28},          {"avx2", 3, EBX, 7, 1u << 5},
    {"bmi1", 3, EBX, 7, 1u << 3},          {"bmi2", 3, EBX, 7, 1u << 8},
    {"f16c", 3, ECX, 1, 1u << 29},         {"fma", 3, ECX, 1, 1u << 12},
    {"lzcnt", 3, ECX, 0x80000001u, 1u << 5}, {"movbe", 3, ECX, 1, 1u << 22},
    {"osxsave", 3, ECX, 1, 1u << 27},      {"xsave-avx", 3, XCR0, 0, 0x6},
    {"avx512f", 4, EBX, 7, 1u << 16},      {"avx512bw", 4, EBX, 7, 1u << 30},
    {"avx512cd", 4, EBX, 7, 1u << 28},     {"avx512dq", 4, EBX, 7, 1u << 17},
    {"avx512vl", 4, EBX, 7, 1u << 31},     {"xsave-avx512", 4, XCR0, 0, 0xe0},
    {"amx-tile", 5, EDX, 7, 1u << 24},     {"amx-bf16", 5, EDX, 7, 1u << 22},
    {"xsave-amx", 5, XCR0, 0, 0x60000},
};

static int has(const feature* f) {
  unsigned r[4] = {0, 0, 0, 0};
  if (f->reg == XCR0) {
    if (!__get_cpuid(1, &r[EAX], &r[EBX], &r[ECX], &r[EDX]) || !(r[ECX] >> 27 & 1u)) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((((unsigned long long)hi << 32) | lo) & f->mask) == f->mask;
  }
  if (f->leaf == 7) {
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, r[EAX], r[EBX], r[ECX], r[EDX]);
  } else if (!__get_cpuid(f->leaf, &r[EAX], &r[EBX], &r[ECX], &r[EDX])) {
    return 0;
  }
  return (r[f->reg] & f->mask) == f->mask;
}

static void append(char* buf, size_t size, const char* name) {
  if (!buf || size == 0) return;
  size_t len = strlen(buf);
  snprintf(buf + len, size - len, "%s%s", len ? " " : "", name);
}

int tsr_x86_level_features(int level, char* have, size_t have_size, char* missing, size_t missing_size) {
  if (have && have_size) have[0] = 0;
  if (missing && missing_size) missing[0] = 0;
  int complete = 1;
  for (size_t i = 0; i < sizeof kFeatures / sizeof kFeatures[0]; ++i) {
    if (kFeatures[i].level > level) continue;
    int present = has(&kFeatures[i]);
    complete &= present;
    append(present ? have : missing, present ? have_size : missing_size, kFeatures[i].name);
  }
  return complete;
}

static int detect(void) {
  int level = 1;
  while (level < 4 && tsr_x86_level_features(level + 1, NULL, 0, NULL, 0)) ++level;
  if (level == 4 && tsr_x86_level_features(5, NULL, 0, NULL, 0)) level |= TSR_X86_FEATURE_AMX;
  return level;
}
#else
int tsr_x86_level_features(int level, char* have, size_t have_size, char* missing, size_t missing_size) {
  (void)level;
  if (have && have_size) have[0] = 0;
  if (missing && missing_size) snprintf(missing, missing_size, "x86-64");
  return 0;
}
static int detect(void) { return 0; }
#endif

int tsr_x86_features(void) {
  static int cached = -1;   /* racing threads compute and store the same value */
  int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (value < 0) {
    value = detect();
    __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
  }
  return value;
}

/* Linux >= 5.16 (Documentation/arch/x86/xstate.rst): tile data must be
 * requested before the first tile instruction, or it raises SIGILL. */
static int request_xtiledata(void) {
#if defined(__x86_64__) && defined(SYS_arch_prctl)
  return (int)syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */);
#else
  return -1;
#endif
}

static pthread_mutex_t amx_lock = PTHREAD_MUTEX_INITIALIZER;
static int (*amx_request)(void) = request_xtiledata;
static int amx_state;   /* 0: not asked yet, 1: granted, 2: refused */

int tsr_x86_amx_permitted(void) {
  int state = __atomic_load_n(&amx_state, __ATOMIC_ACQUIRE);
  if (!state) {
    pthread_mutex_lock(&amx_lock);
    if (!(state = amx_state)) __atomic_store_n(&amx_state, state = amx_request() == 0 ? 1 : 2, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&amx_lock);
  }
  return state == 1;
}

void tsr_x86_amx_request_for_tests(int (*request)(void)) {
  pthread_mutex_lock(&amx_lock);
  amx_request = request ? request : request_xtiledata;
  __atomic_store_n(&amx_state, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&amx_lock);
}
