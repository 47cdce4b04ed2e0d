/* What the tesserac compiler uses from the runtime stub: device discovery
 * (CUDA, HIP, XDNA NPU, the x86-64 CPU's features) and the one evaluator of
 * GPU launch geometry, so that the compiler and libtesserart never disagree
 * about a device or a grid. Not part of the stub's user API (tesserart.h)
 * and not installed: these are internal symbols of libtesserart.a, hidden in
 * libtesserart.so. Each discovery call loads its vendor library on first use
 * (thread-safe, once); a backend built out of the stub (TESSERAC_STUB_CUDA,
 * _HIP, _XRT off) reports no device and says so in its reason. */
#ifndef TESSERART_COMPILER_H
#define TESSERART_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#include "tesserart.h" /* tsr_status */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CUDA (docs/runtime.md, "GPU launch") -------------------------------- */
/* Devices the driver reports; 0 without a driver or device. */
int tsr_cuda_device_count(void);
/* Why there is no device ("no CUDA driver (libcuda.so.1 not found)", "no
 * CUDA device", ...); "" when there is one. */
const char* tsr_cuda_unavailable_reason(void);
typedef struct tsr_cuda_device_desc {
  char name[128];
  int compute_capability;   /* major*10+minor */
  int driver_version;       /* cuDriverGetVersion, e.g. 13000 */
} tsr_cuda_device_desc;
/* TSR_OK and device ordinal `device`'s description; TSR_ERROR_NO_DEVICE
 * without a driver or such a device. */
tsr_status tsr_cuda_describe(int device, tsr_cuda_device_desc* out);

/* "x,y,z" of cuda.block / cuda.grid (and hip.*), each INT | NAME |
 * cdiv(INT_OR_NAME,INT) with NAME one of scalar_names (scalars[i] its
 * value). Returns NULL and the three values when they are valid for `what`
 * ("grid": x in 1..2^31-1, y and z in 1..65535; "block": x, y in 1..1024, z
 * in 1..64, product <= 1024), or a static string saying what is wrong
 * (TSR_CUDA_GRID_TOO_LARGE, compared by address, when a grid component
 * exceeds its limit: sizes too large for the artifact). The stub checks
 * every GPU launch with this same function. */
extern const char TSR_CUDA_GRID_TOO_LARGE[];
const char* tsr_cuda_eval_triple(const char* text, const char* what, const char* const* scalar_names,
                                 const int64_t* scalars, size_t scalar_count, unsigned out[3]);

/* ---- HIP (docs/targets-hip.md) ------------------------------------------- */
/* Devices the runtime reports; 0 without a runtime or device. */
int tsr_hip_device_count(void);
/* Why there is no device ("no AMD GPU: libamdhip64 not found (...)", "no
 * AMD GPU: hipGetDeviceCount reports 0 (...)"); "" when there is one. */
const char* tsr_hip_unavailable_reason(void);
typedef struct tsr_hip_device_desc {
  char name[256];
  char arch[256];           /* gcnArchName: a target ID, "gfx90a:sramecc+:xnack-" */
  int driver_version;       /* hipDriverGetVersion */
} tsr_hip_device_desc;
tsr_status tsr_hip_describe(int device, tsr_hip_device_desc* out);
/* -1 when code built for target ID `code_id` ("gfx90a", "gfx90a:xnack+")
 * cannot run on a device reporting `device_id`; otherwise the number of
 * features the code states (a feature it omits is "any"). */
int tsr_hip_target_id_match(const char* device_id, const char* code_id);

/* ---- AMD XDNA NPU (docs/targets-xdna.md, "Runtime") ---------------------- */
/* TSR_OK and the NPU's description, or TSR_ERROR_NO_DEVICE and the reason
 * ("no NPU (/dev/accel/accel0 absent ..."), written to out_npu. */
tsr_status tsr_xrt_probe(char* out_npu, size_t npu_size);

/* ---- x86-64 CPU (x86-64 psABI §3.1.1 microarchitecture levels) ----------- */
/* The features levels 2..level require, split into the ones this CPU has
 * and the ones it lacks, space-separated ("sse3 ssse3 cx16 ..."; the OS
 * register-state checks read "xsave-avx" and "xsave-avx512"). Returns 1
 * when none is missing. Either buffer may be NULL. */
int tsr_x86_level_features(int level, char* have, size_t have_size, char* missing, size_t missing_size);
/* Whether this process may use AMX tile data: the Linux permission request
 * (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)), made once per
 * process on first call; later calls return its answer. Variant selection
 * asks before it picks an AMX variant, so before the first AMX launch. */
int tsr_x86_amx_permitted(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERART_COMPILER_H */
