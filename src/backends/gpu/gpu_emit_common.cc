// What the CUDA and HIP C++ emitters share (CUDA C++ Programming Guide; HIP
// is the same language for these pieces). The hardware-specific operations
// are each dialect's named primitives (cuda/cuda_primitives.h, hip/hip_emit_common.h).
#include "gpu/gpu_emit_common.h"

#include <cmath>
#include <cstdio>

#include "spec/abi.h"
#include "target/c_expr.h"

namespace tsr::gpu {

namespace {

// Global memory: scalar, 16-byte vector and 4-byte pair accesses. One place,
// so the emulator can check every global access the emitters make.
const char* kMemory = R"(struct alignas(16) tsr_v16 { unsigned x, y, z, w; };
template <class T> __device__ __forceinline__ T tsr_ldg(const T* __restrict__ p, long long i) { return p[i]; }
template <class T> __device__ __forceinline__ void tsr_stg(T* __restrict__ p, long long i, T v) { p[i] = v; }
__device__ __forceinline__ void tsr_ldg_v16(const void* p, long long vi, unsigned* w) {
  const tsr_v16 r = reinterpret_cast<const tsr_v16*>(p)[vi];
  w[0] = r.x; w[1] = r.y; w[2] = r.z; w[3] = r.w;
}
__device__ __forceinline__ void tsr_stg_v16(void* p, long long vi, const unsigned* w) {
  tsr_v16 r; r.x = w[0]; r.y = w[1]; r.z = w[2]; r.w = w[3];
  reinterpret_cast<tsr_v16*>(p)[vi] = r;
}
__device__ __forceinline__ void tsr_stg_u32(void* p, unsigned v) { *reinterpret_cast<unsigned*>(p) = v; }
)";

}  // namespace

const char* global_memory_primitives() { return kMemory; }

std::string LaunchPlan::block_text() const {
  return std::to_string(block_x) + "," + std::to_string(block_y) + "," + std::to_string(block_z);
}

std::string LaunchPlan::grid_text() const { return grid_x + "," + grid_y + "," + grid_z; }

void LaunchPlan::write_metadata(std::map<std::string, std::string>& metadata, const std::string& kind) const {
  metadata[kind + ".block"] = block_text();
  metadata[kind + ".grid"] = grid_text();
  metadata[kind + ".shared_bytes"] = std::to_string(shared_bytes);
}

WaveText wave_text(int wave_size) {
  int shift = 0;
  while ((1 << shift) < wave_size) ++shift;
  return {std::to_string(wave_size / 2), std::to_string(wave_size - 1), std::to_string(shift)};
}

int vector_width(DType t) { return 16 / dtype_size(t); }

std::string buffer_param(const std::string& abi_name) { return "p_" + abi_name; }
std::string dim_expr(const KernelSpec& spec, const Dim& d) {
  if (d.is_static()) return "((long long)" + std::to_string(d.value) + ")";
  return c_scalar_param(spec, d);
}

std::string grid_cdiv(const Dim& d, int64_t per_block) {
  if (d.is_static()) return std::to_string((d.value + per_block - 1) / per_block);
  if (per_block == 1) return d.name;
  return "cdiv(" + d.name + "," + std::to_string(per_block) + ")";
}

std::string float_literal(double v) {
  const float f = static_cast<float>(v);
  if (std::isinf(f)) return f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  return c_f32_digits(f) + "f";
}

std::string unary_expr(Op op, const std::string& v) {
  switch (op) {
    case Op::relu: return "(" + v + " > 0.0f ? " + v + " : 0.0f)";
    case Op::gelu_tanh:
      return "(0.5f * " + v + " * (1.0f + tanhf(0.7978845608f * (" + v + " + 0.044715f * " + v + " * " + v +
             " * " + v + "))))";
    case Op::gelu_erf: return "(0.5f * " + v + " * (1.0f + erff(" + v + " * 0.70710678118654752f)))";
    case Op::silu: return "(" + v + " / (1.0f + expf(-" + v + ")))";
    case Op::sigmoid: return "(1.0f / (1.0f + expf(-" + v + ")))";
    case Op::tanh: return "tanhf(" + v + ")";
    case Op::exp: return "expf(" + v + ")";
    case Op::neg: return "(-" + v + ")";
    case Op::abs: return "fabsf(" + v + ")";
    case Op::sqrt: return "sqrtf(" + v + ")";
    // 1/sqrtf is correctly rounded twice; rsqrtf is a 2-ulp approximation.
    case Op::rsqrt: return "(1.0f / sqrtf(" + v + "))";
    default: break;
  }
  return v;   // binary ops never reach here (asserted by callers)
}

std::string binary_expr(Op op, const std::string& a, const std::string& b) {
  const std::string e = c_binary_expr(op, a, b);
  return e.empty() ? a : e;   // unary ops never reach here (callers check op_is_binary)
}

std::string kernel_signature(const KernelSpec& spec, int max_threads) {
  const KernelAbi abi = kernel_abi(spec);
  std::string s = "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(max_threads) + ")\n" +
                  spec.name + "(";
  bool first = true;
  size_t scalar_index = 0;
  for (const Binding& b : abi.bindings) {
    s += first ? "" : ",\n    ";
    first = false;
    // An f32 buffer of a 16-bit kernel (attention's lse and alibi_slopes) is float.
    const std::string elem = b.dtype == spec.dtype ? "tsr_t" : "float";
    if (b.role == Role::input) s += "const " + elem + "* __restrict__ " + buffer_param(b.name);
    else if (b.role == Role::output) s += elem + "* __restrict__ " + buffer_param(b.name);
    else s += "long long " + c_scalar_param(scalar_index++) + " /* " + b.name + " */";
  }
  return s + ")";
}

namespace {

const char* kConversions16 = R"(// 16-bit storage: conversions are single PTX cvt instructions (round to nearest even).
typedef unsigned short tsr_t;
#define TSR_VEC 8
)";

const char* kF16 = R"(__device__ __forceinline__ float tsr_to_f32(tsr_t h) { return tsr_cvt_f16_to_f32(h); }
__device__ __forceinline__ tsr_t tsr_from_f32(float f) { return tsr_cvt_f32_to_f16(f); }
)";

const char* kBf16 = R"(__device__ __forceinline__ float tsr_to_f32(tsr_t h) {
  return __uint_as_float(((unsigned)h) << 16);
}
__device__ __forceinline__ tsr_t tsr_from_f32(float f) { return tsr_cvt_f32_to_bf16(f); }
)";

const char* kF32 = R"(typedef float tsr_t;
#define TSR_VEC 4
__device__ __forceinline__ float tsr_to_f32(tsr_t v) { return v; }
__device__ __forceinline__ tsr_t tsr_from_f32(float f) { return f; }
)";

const char* kVector16 = R"(__device__ __forceinline__ void tsr_ld_vec(const tsr_t* p, long long vi, float* out) {
  unsigned w[4];
  tsr_ldg_v16(p, vi, w);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    out[2 * j] = tsr_to_f32((tsr_t)(w[j] & 0xffffu));
    out[2 * j + 1] = tsr_to_f32((tsr_t)(w[j] >> 16));
  }
}
__device__ __forceinline__ void tsr_st_vec(tsr_t* p, long long vi, const float* in) {
  unsigned w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
    w[j] = (unsigned)tsr_from_f32(in[2 * j]) | ((unsigned)tsr_from_f32(in[2 * j + 1]) << 16);
  tsr_stg_v16(p, vi, w);
}
)";

const char* kVector32 = R"(__device__ __forceinline__ void tsr_ld_vec(const tsr_t* p, long long vi, float* out) {
  unsigned w[4];
  tsr_ldg_v16(p, vi, w);
  out[0] = __uint_as_float(w[0]); out[1] = __uint_as_float(w[1]);
  out[2] = __uint_as_float(w[2]); out[3] = __uint_as_float(w[3]);
}
__device__ __forceinline__ void tsr_st_vec(tsr_t* p, long long vi, const float* in) {
  const unsigned w[4] = {__float_as_uint(in[0]), __float_as_uint(in[1]), __float_as_uint(in[2]),
                         __float_as_uint(in[3])};
  tsr_stg_v16(p, vi, w);
}
)";

const char* kCommon = R"(__device__ __forceinline__ float tsr_ld(const tsr_t* p, long long i) { return tsr_to_f32(tsr_ldg(p, i)); }
__device__ __forceinline__ void tsr_st(tsr_t* p, long long i, float v) { tsr_stg(p, i, tsr_from_f32(v)); }
__device__ __forceinline__ bool tsr_aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15ull) == 0;
}
)";


}  // namespace

std::string storage_support(DType storage) {
  std::string s;
  switch (storage) {
    case DType::f32: s += kF32; break;
    case DType::f16: s += kConversions16; s += kF16; break;
    case DType::bf16: s += kConversions16; s += kBf16; break;
  }
  s += kCommon;
  return s + (storage == DType::f32 ? kVector32 : kVector16);
}

std::string block_reductions(int wave_size) {
  const WaveText w = wave_text(wave_size);
  return "// Block reductions in a fixed order, so results are bit-reproducible.\n"
         "__device__ __forceinline__ float tsr_warp_sum(float v) {\n"
         "#pragma unroll\n"
         "  for (int o = " + w.half + "; o > 0; o >>= 1) v += tsr_shfl_xor_sync(0xffffffffu, v, o);\n"
         "  return v;\n"
         "}\n"
         "__device__ __forceinline__ float tsr_block_sum(float v, float* red) {\n"
         "  v = tsr_warp_sum(v);\n"
         "  const int lane = threadIdx.x & " + w.mask + ", warp = threadIdx.x >> " + w.shift +
         ", nwarps = (blockDim.x + " + w.mask + ") >> " + w.shift + ";\n"
         "  tsr_syncthreads();   // red may still be read by a previous reduction\n"
         "  if (lane == 0) red[warp] = v;\n"
         "  tsr_syncthreads();\n"
         "  return tsr_warp_sum(lane < nwarps ? red[lane] : 0.0f);\n"
         "}\n";
}


}  // namespace tsr::gpu
