// The HIP prelude (clang "AMDGPU builtins"; AMD CDNA2/CDNA3/RDNA ISA guides for
// ds_bpermute_b32, s_barrier, v_mbcnt and v_mfma). Built with -nogpuinc
// -nogpulib, so the keywords are clang's attributes spelled here, and the math
// is the shared polynomial text (src/backends/target/vector_math_text.h) at one lane.
#include "hip/hip_emit_common.h"

#include "gpu/gpu_emit_common.h"
#include "target/vector_math_text.h"

namespace tsr::hip {

namespace {

// Inside #ifndef TSR_EMULATED: what the HIP headers would define, and the
// operations whose emulator twins are exact (global memory through the
// checked tsr_ldg family, the f16 conversions of v_cvt_f16_f32).
const char* kKeywords = R"(#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
// Math the AMDGPU backend lowers to instructions (no library call).
#define fmaxf __builtin_fmaxf
#define fminf __builtin_fminf
#define fmaf __builtin_fmaf
#define fabsf __builtin_fabsf
#define sqrtf __builtin_sqrtf
#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()
typedef int int32_t;
typedef unsigned uint32_t;
typedef long int64_t;
__device__ __forceinline__ float __uint_as_float(unsigned u) { return __builtin_bit_cast(float, u); }
__device__ __forceinline__ float __int_as_float(int i) { return __builtin_bit_cast(float, i); }
__device__ __forceinline__ unsigned __float_as_uint(float f) { return __builtin_bit_cast(unsigned, f); }
)";

const char* kHalf = R"(typedef __fp16 tsr_half4 __attribute__((ext_vector_type(4)));
// v_cvt_f32_f16 / v_cvt_f16_f32 (round to nearest even).
__device__ __forceinline__ float tsr_cvt_f16_to_f32(unsigned short h) { return (float)__builtin_bit_cast(__fp16, h); }
__device__ __forceinline__ unsigned short tsr_cvt_f32_to_f16(float f) {
  return __builtin_bit_cast(unsigned short, (__fp16)f);
}
)";

// Outside the block: the emulator maps each __builtin_amdgcn_* to its own
// function, so this code runs there as written.
const char* kThreads = R"(struct tsr_dim3 { unsigned x, y, z; };
#define threadIdx (tsr_dim3{__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z()})
#define blockIdx (tsr_dim3{__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z()})
#define blockDim (tsr_dim3{__builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_workgroup_size_z()})
// The dispatch packet's grid size counts work-items; HIP launches whole blocks.
#define gridDim (tsr_dim3{__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z()})
// s_barrier between workgroup-scope release and acquire fences (what HIP's __syncthreads is).
__device__ __forceinline__ void tsr_syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
)";

// The lane in the wavefront (v_mbcnt_lo/hi over all lanes: lanes below this one).
const char* kLane64 =
    "__device__ __forceinline__ int tsr_lane() { return (int)__builtin_amdgcn_mbcnt_hi(~0u, "
    "__builtin_amdgcn_mbcnt_lo(~0u, 0u)); }\n";
const char* kLane32 = "__device__ __forceinline__ int tsr_lane() { return (int)__builtin_amdgcn_mbcnt_lo(~0u, 0u); }\n";

// ds_bpermute_b32: every lane reads lane addr/4 of its own wavefront. The
// mask argument keeps the CUDA spelling of the shared family code; all lanes
// of the wavefront take part (the emitted code calls it from uniform flow).
const char* kShuffle = R"(__device__ __forceinline__ float tsr_shfl_xor_sync(unsigned mask, float v, int lane_mask) {
  (void)mask;
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute((tsr_lane() ^ lane_mask) << 2, __builtin_bit_cast(int, v)));
}
)";

// bf16 is the upper half of an f32; round to nearest even in integers (NaN stays NaN, quieted).
const char* kBf16Rounding = R"(__device__ __forceinline__ unsigned short tsr_cvt_f32_to_bf16(float f) {
  const unsigned u = __builtin_bit_cast(unsigned, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
)";

// One lane's view of the math: the shared polynomials on one-element vectors.
const char* kMathTypes = R"(#define TSR_INLINE static __device__ inline __attribute__((always_inline, unused))
enum { VW = 1 };
typedef float tsr_vec __attribute__((ext_vector_type(VW)));
typedef int32_t tsr_ivec __attribute__((ext_vector_type(VW)));
typedef double tsr_dvec __attribute__((ext_vector_type(VW)));
TSR_INLINE tsr_vec tsr_vsqrt(tsr_vec v) { return (tsr_vec)sqrtf(v.x); }
TSR_INLINE int tsr_any(tsr_ivec m) { return m.x != 0; }
#define TSR_HAVE_FMA 1
TSR_INLINE tsr_vec tsr_vfma(tsr_vec a, tsr_vec b, tsr_vec c) { return (tsr_vec)fmaf(a.x, b.x, c.x); }
TSR_INLINE tsr_vec tsr_vrecip(tsr_vec s) { return 1.0f / s; }
#define TSR_HAVE_SCALEF 0
#define TSR_MATH_16 0
)";

const char* kMathNames = R"(// The libm names the shared family code uses, on the polynomials above.
__device__ __forceinline__ float tsr_expf(float x) { return tsr_vexp((tsr_vec)x).x; }
__device__ __forceinline__ float tsr_logf(float x) { return tsr_vlog((tsr_vec)x).x; }
__device__ __forceinline__ float tsr_tanhf(float x) { return tsr_vtanh((tsr_vec)x).x; }
__device__ __forceinline__ float tsr_erff(float x) { return tsr_verf((tsr_vec)x).x; }
#define expf tsr_expf
#define logf tsr_logf
#define tanhf tsr_tanhf
#define erff tsr_erff
)";

// v_mfma_f32_32x32x8{bf16_1k,f16}: A 32x8, B 8x32, C/D 32x32 in f32; lane
// layouts at the kernel (hip_emit_matmul.cc). cbsz, abid, blgp are 0.
const char* kMfmaTypes = R"(typedef short tsr_short4 __attribute__((ext_vector_type(4)));
typedef float tsr_float16 __attribute__((ext_vector_type(16)));
)";

}  // namespace

bool uses_mfma(const KernelSpec& spec, const HipArch& arch) {
  return arch.has_mfma && spec.family == Family::matmul && spec.dtype != DType::f32;
}

std::string hip_prelude(const KernelSpec& spec, const HipArch& arch) {
  const std::string wave = std::to_string(arch.wave_size);
  // The arch is named by its wave size only: archs of one wave size get byte-identical source.
  std::string s = "// Generated by tesserac for the hip target (wave" + wave + "): kernel '" +
                  spec.name + "', family " + family_name(spec.family) + ", storage " + dtype_name(spec.dtype) +
                  ".\n// Arithmetic is f32; every store rounds to the storage dtype (nearest even).\n"
                  "// Self-contained: no ROCm header, no device library (clang -nogpuinc -nogpulib).\n\n";
  s += "#define TSR_WAVE " + wave + "\n";
  s += "#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != TSR_WAVE\n";
  s += "#error \"kernel emitted for wave" + wave + "\"\n#endif\n";
  s += "// HIP keywords and primitives. The CPU emulator compiles this file with TSR_EMULATED\n"
       "// defined and its own definitions of the same names (docs/emulator.md).\n"
       "#ifndef TSR_EMULATED\n";
  s += kKeywords;
  s += gpu::global_memory_primitives();
  if (spec.dtype == DType::f16) s += kHalf;
  s += "#endif  // TSR_EMULATED\n\n";
  s += kThreads;
  if (spec.family == Family::rowwise) {
    s += arch.wave_size == 64 ? kLane64 : kLane32;
    s += kShuffle;
  }
  if (spec.dtype == DType::bf16) s += kBf16Rounding;
  if (uses_mfma(spec, arch)) s += kMfmaTypes;
  s += kMathTypes;
  s += vector_math_text();
  s += kMathNames;
  s += gpu::storage_support(spec.dtype);
  if (spec.family == Family::rowwise) s += gpu::block_reductions(arch.wave_size);
  return s + "\n";
}

}  // namespace tsr::hip
