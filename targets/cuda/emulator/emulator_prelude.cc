// The emulation prelude's text (CUDA C++ Programming Guide: built-in variables,
// __shared__, function qualifiers; the primitives mirror cuda_primitives.cc).
// Static __shared__ variables go to one ELF section, so the emulator can find
// (and poison) a block's shared memory through __start_/__stop_ symbols.
#include "targets/cuda/emulator/emulator_prelude.h"

#include "targets/cuda/emulator/emulator_abi.h"

namespace tsr::cuda::emu {

namespace {

const char* kKeywords = R"(// Emulation prelude (tesserac CPU emulator): CUDA C++ as host C++.
#include <math.h>
#include <string.h>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __shared__ static __attribute__((section("tsr_emu_shared")))
)";

const char* kRuntime = R"(
extern "C" {
tsr_emu_thread_regs* tsr_emu_regs;   // set by the emulator before a thread runs
const tsr_emu_api* tsr_emu;          // set once per launch
}
#define threadIdx (tsr_emu_regs->thread_idx)
#define blockIdx (tsr_emu_regs->block_idx)
#define blockDim (tsr_emu_regs->block_dim)
#define gridDim (tsr_emu_regs->grid_dim)
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
// ---- primitives (targets/cuda/cuda_primitives.cc), every one checked or scheduled
template <class T> inline T tsr_ldg(const T* p, long long i) {
  return tsr_emu->check_global(p + i, sizeof(T), 0) ? p[i] : T();
}
template <class T> inline void tsr_stg(T* p, long long i, T v) {
  if (tsr_emu->check_global(p + i, sizeof(T), 1)) p[i] = v;
}
inline void tsr_ldg_v16(const void* p, long long vi, unsigned* w) {
  const char* a = (const char*)p + vi * 16;
  if (tsr_emu->check_global(a, 16, 0)) memcpy(w, a, 16); else memset(w, 0, 16);
}
inline void tsr_stg_v16(void* p, long long vi, const unsigned* w) {
  char* a = (char*)p + vi * 16;
  if (tsr_emu->check_global(a, 16, 1)) memcpy(a, w, 16);
}
inline void tsr_stg_u32(void* p, unsigned v) { if (tsr_emu->check_global(p, 4, 1)) memcpy(p, &v, 4); }
inline void tsr_syncthreads() { tsr_emu->syncthreads(); }
inline float tsr_cvt_f16_to_f32(unsigned short h) { return tsr_emu->f16_to_f32(h); }
inline unsigned short tsr_cvt_f32_to_f16(float f) { return tsr_emu->f32_to_f16(f); }
inline unsigned short tsr_cvt_f32_to_bf16(float f) { return tsr_emu->f32_to_bf16(f); }
inline float tsr_shfl_xor_sync(unsigned mask, float v, int lane_mask) { return tsr_emu->shfl_xor_sync(mask, v, lane_mask); }
inline void tsr_cp_async16(void* smem, const void* gmem, int src_bytes) { tsr_emu->cp_async16(smem, gmem, src_bytes); }
inline void tsr_cp_async_commit() { tsr_emu->cp_async_commit(); }
inline void tsr_cp_async_wait1() { tsr_emu->cp_async_wait_group(1); }
inline void tsr_ldmatrix_x4(unsigned* r, const void* smem) { tsr_emu->ldmatrix_x4(r, smem, 0); }
inline void tsr_ldmatrix_x4_trans(unsigned* r, const void* smem) { tsr_emu->ldmatrix_x4(r, smem, 1); }
inline void tsr_mma_m16n8k16(float* d, const unsigned* a, const unsigned* b) {
  tsr_emu->mma_m16n8k16(d, a, b, TSR_EMU_MMA_BF16);
}
)";

}  // namespace

std::string emulation_prelude() {
  return std::string(kKeywords) + "extern \"C\" {\n" + TSR_EMU_STRINGIFY(TSR_EMU_ABI_DECLARATIONS) + "\n}\n" +
         kRuntime;
}

std::string emulation_entry(const KernelSpec& spec) {
  const KernelAbi abi = kernel_abi(spec);
  std::string call;
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding& b = abi.bindings[i];
    call += i ? ", " : "";
    call += (b.role == Role::scalar ? "*(const long long*)args[" : "(tsr_t*)args[") + std::to_string(i) + "]";
  }
  return "\n// ---- emulator entry (not part of the emitted kernel)\n"
         "extern \"C\" void tsr_emu_entry(void* const* args) { " + spec.name + "(" + call + "); }\n"
         "extern \"C\" char __start_tsr_emu_shared[] __attribute__((weak));\n"
         "extern \"C\" char __stop_tsr_emu_shared[] __attribute__((weak));\n"
         "extern \"C\" void tsr_emu_shared_range(char** begin, char** end) {\n"
         "  *begin = __start_tsr_emu_shared; *end = __stop_tsr_emu_shared;\n}\n";
}

}  // namespace tsr::cuda::emu
