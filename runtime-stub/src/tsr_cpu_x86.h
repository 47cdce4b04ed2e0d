/* x86-64 psABI microarchitecture levels (x86-64 psABI §3.1.1) as this CPU
 * supports them: the one detector of the project. The stub's variant
 * selection and the compiler's device discovery (`tesserac targets`, the
 * oracle's "device present" check) both ask it. Internal: not in tesserart.h;
 * what the compiler calls is declared in tesserart_compiler.h. */
#ifndef TSR_CPU_X86_H
#define TSR_CPU_X86_H

#include <stddef.h>

#include "tesserart_compiler.h" /* tsr_x86_level_features, tsr_x86_amx_permitted */

#ifdef __cplusplus
extern "C" {
#endif

#define TSR_X86_FEATURE_AMX 0x100   /* amx-tile, amx-bf16 and the OS's saved tile state */

/* Level (0 on a non-x86 host, else 1..4) in bits 0..7, TSR_X86_FEATURE_AMX
 * when the CPU and OS support AMX tiles (the permission is separate). Detected on first use and cached; threads
 * racing to the first use may each detect, and store the same value. */
int tsr_x86_features(void);

/* Tests only: the next tsr_x86_amx_permitted() asks `request` (returning 0
 * for granted) instead of the kernel, once; NULL restores the real request. */
void tsr_x86_amx_request_for_tests(int (*request)(void));

#ifdef __cplusplus
}
#endif

#endif /* TSR_CPU_X86_H */
