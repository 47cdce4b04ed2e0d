// The emulation prelude's text (CUDA C++ Programming Guide: built-in variables,
// __shared__, function qualifiers; the primitives mirror cuda_primitives.cc).
// Static __shared__ variables go to one ELF section, so the emulator can find
// (and poison) a block's shared memory through __start_/__stop_ symbols.
#include "emulator/emulator_prelude.h"

#include "emulator/emulator_abi.h"

namespace tsr::cuda::emu {

namespace {

const char* kKeywords = R"(// Emulation prelude (tesserac CPU emulator): CUDA C++ as host C++.
#include <math.h>
#include <stdint.h>
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
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
// ---- primitives (src/backends/cuda/cuda_primitives.cc), every one checked or scheduled.
// The module is built with -fsanitize=thread instrumentation (racecheck): the
// primitives check their own accesses, so they read tsr_emu and touch global
// memory through relaxed atomics, which that instrumentation leaves alone
// (emulator.cc turns atomic instrumentation off); on x86-64 they are plain moves.
#define TSR_EMU __atomic_load_n(&tsr_emu, __ATOMIC_RELAXED)
template <class T> inline T tsr_ldg(const T* p, long long i) {
  T v = T();
  if (TSR_EMU->check_global(p + i, sizeof(T), 0)) __atomic_load(p + i, &v, __ATOMIC_RELAXED);
  return v;
}
template <class T> inline void tsr_stg(T* p, long long i, T v) {
  if (TSR_EMU->check_global(p + i, sizeof(T), 1)) __atomic_store(p + i, &v, __ATOMIC_RELAXED);
}
// 16-byte memcpy stays a memory intrinsic, which the instrumentation skips.
inline void tsr_ldg_v16(const void* p, long long vi, unsigned* w) {
  const char* a = (const char*)p + vi * 16;
  if (TSR_EMU->check_global(a, 16, 0)) memcpy(w, a, 16); else memset(w, 0, 16);
}
inline void tsr_stg_v16(void* p, long long vi, const unsigned* w) {
  char* a = (char*)p + vi * 16;
  if (TSR_EMU->check_global(a, 16, 1)) memcpy(a, w, 16);
}
inline void tsr_stg_u32(void* p, unsigned v) {
  if (TSR_EMU->check_global(p, 4, 1)) __atomic_store((unsigned*)p, &v, __ATOMIC_RELAXED);
}
inline float tsr_cvt_f16_to_f32(unsigned short h) { return TSR_EMU->f16_to_f32(h); }
inline unsigned short tsr_cvt_f32_to_f16(float f) { return TSR_EMU->f32_to_f16(f); }
inline unsigned char* tsr_dynamic_shared() { return (unsigned char*)TSR_EMU->dynamic_shared(); }
// ---- the sanitizer hooks, defined here instead of by a sanitizer runtime.
// ThreadSanitizer instrumentation (LLVM ThreadSanitizer.cpp) calls
// __tsan_{read,write}N before every plain access that may be shared; the
// emulator's racecheck and memcheck see them. UBSan's -fsanitize=array-bounds
// calls __ubsan_handle_out_of_bounds(data, index) for an index outside a
// declared array bound (compiler-rt ubsan_handlers.h gives the data layout).
#define TSR_EMU_HOOK extern "C" __attribute__((no_sanitize("thread", "undefined"), visibility("default")))
TSR_EMU_HOOK void __tsan_init() {}
#define TSR_EMU_ACCESS_HOOKS(n)                                                               \
  TSR_EMU_HOOK void __tsan_read##n(void* p) { TSR_EMU->access(p, n, 0); }                     \
  TSR_EMU_HOOK void __tsan_write##n(void* p) { TSR_EMU->access(p, n, 1); }                    \
  TSR_EMU_HOOK void __tsan_unaligned_read##n(void* p) { TSR_EMU->access(p, n, 0); }           \
  TSR_EMU_HOOK void __tsan_unaligned_write##n(void* p) { TSR_EMU->access(p, n, 1); }
TSR_EMU_ACCESS_HOOKS(1)
TSR_EMU_ACCESS_HOOKS(2)
TSR_EMU_ACCESS_HOOKS(4)
TSR_EMU_ACCESS_HOOKS(8)
TSR_EMU_ACCESS_HOOKS(16)
TSR_EMU_HOOK void __tsan_read_range(void* p, unsigned long n) { TSR_EMU->access(p, n, 0); }
TSR_EMU_HOOK void __tsan_write_range(void* p, unsigned long n) { TSR_EMU->access(p, n, 1); }
TSR_EMU_HOOK void __ubsan_handle_out_of_bounds(void* data, unsigned long index) {
  TSR_EMU->index_out_of_bounds(data, index);
}
TSR_EMU_HOOK void __ubsan_handle_out_of_bounds_abort(void* data, unsigned long index) {
  TSR_EMU->index_out_of_bounds(data, index);
  __builtin_unreachable();
}
)";

const char* kCudaRuntime = R"(// ---- CUDA: special registers and the primitives of src/backends/cuda/cuda_primitives.cc.
#define threadIdx (tsr_emu_regs->thread_idx)
#define blockIdx (tsr_emu_regs->block_idx)
#define blockDim (tsr_emu_regs->block_dim)
#define gridDim (tsr_emu_regs->grid_dim)
inline void tsr_syncthreads() { TSR_EMU->syncthreads(); }
inline unsigned short tsr_cvt_f32_to_bf16(float f) { return TSR_EMU->f32_to_bf16(f); }
inline float tsr_shfl_xor_sync(unsigned mask, float v, int lane_mask) { return TSR_EMU->shfl_xor_sync(mask, v, lane_mask); }
inline void tsr_cp_async16(void* smem, const void* gmem, int src_bytes) { TSR_EMU->cp_async16(smem, gmem, src_bytes); }
inline void tsr_cp_async_commit() { TSR_EMU->cp_async_commit(); }
inline void tsr_cp_async_wait1() { TSR_EMU->cp_async_wait_group(1); }
inline void tsr_ldmatrix_x4(unsigned* r, const void* smem) { TSR_EMU->ldmatrix_x4(r, smem, 0); }
inline void tsr_ldmatrix_x4_trans(unsigned* r, const void* smem) { TSR_EMU->ldmatrix_x4(r, smem, 1); }
inline void tsr_mma_m16n8k16(float* d, const unsigned* a, const unsigned* b) {
  TSR_EMU->mma_m16n8k16(d, a, b, TSR_EMU_MMA_BF16);
}
)";

// The HIP source's hardware operations are clang AMDGPU builtins (src/backends/hip/
// hip_emit_common.cc); each becomes an emulator call here, so the emitted code
// around them (lane ids, addresses, operand packing) runs as written.
const char* kHipRuntime = R"(// ---- HIP: the __builtin_amdgcn_* the hip emitter writes.
#define __builtin_amdgcn_workitem_id_x() (tsr_emu_regs->thread_idx.x)
#define __builtin_amdgcn_workitem_id_y() (tsr_emu_regs->thread_idx.y)
#define __builtin_amdgcn_workitem_id_z() (tsr_emu_regs->thread_idx.z)
#define __builtin_amdgcn_workgroup_id_x() (tsr_emu_regs->block_idx.x)
#define __builtin_amdgcn_workgroup_id_y() (tsr_emu_regs->block_idx.y)
#define __builtin_amdgcn_workgroup_id_z() (tsr_emu_regs->block_idx.z)
#define __builtin_amdgcn_workgroup_size_x() ((unsigned short)tsr_emu_regs->block_dim.x)
#define __builtin_amdgcn_workgroup_size_y() ((unsigned short)tsr_emu_regs->block_dim.y)
#define __builtin_amdgcn_workgroup_size_z() ((unsigned short)tsr_emu_regs->block_dim.z)
// The dispatch packet's grid size is in work-items.
#define __builtin_amdgcn_grid_size_x() (tsr_emu_regs->grid_dim.x * tsr_emu_regs->block_dim.x)
#define __builtin_amdgcn_grid_size_y() (tsr_emu_regs->grid_dim.y * tsr_emu_regs->block_dim.y)
#define __builtin_amdgcn_grid_size_z() (tsr_emu_regs->grid_dim.z * tsr_emu_regs->block_dim.z)
#define __builtin_amdgcn_s_barrier() (TSR_EMU->syncthreads())
// Fences order nothing here: the emulator runs one thread at a time in program order.
#define __builtin_amdgcn_fence(order, scope) ((void)0)
// v_mbcnt_lo/hi: acc plus the set bits of mask among the lanes below this one (lo: lanes 0-31, hi: 32-63).
inline unsigned tsr_emu_mbcnt(unsigned mask, unsigned acc, unsigned first) {
  const unsigned lane = tsr_emu_regs->lane;
  const unsigned below = lane <= first ? 0u : lane - first >= 32 ? ~0u : (1u << (lane - first)) - 1u;
  return acc + (unsigned)__builtin_popcount(mask & below);
}
#define __builtin_amdgcn_mbcnt_lo(mask, acc) tsr_emu_mbcnt((mask), (acc), 0)
#define __builtin_amdgcn_mbcnt_hi(mask, acc) tsr_emu_mbcnt((mask), (acc), 32)
#define __builtin_amdgcn_ds_bpermute(addr, data) (TSR_EMU->ds_bpermute((addr), (data)))
// The f16 MFMA operands are bits here (no host _Float16 in clang 14).
typedef unsigned short tsr_half4 __attribute__((ext_vector_type(4)));
typedef float tsr_emu_float16 __attribute__((ext_vector_type(16)));
template <class V> inline tsr_emu_float16 tsr_emu_mfma(V a, V b, tsr_emu_float16 c, int bf16) {
  static_assert(sizeof(V) == 8, "four 16-bit operands per lane");
  float d[16];
  memcpy(d, &c, 64);
  TSR_EMU->mfma_32x32x8(d, &a, &b, bf16);
  memcpy(&c, d, 64);
  return c;
}
#define __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, cbsz, abid, blgp) tsr_emu_mfma((a), (b), (c), 1)
#define __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, cbsz, abid, blgp) tsr_emu_mfma((a), (b), (c), 0)
)";

}  // namespace

std::string emulation_prelude(EmulatedDialect dialect) {
  return std::string(kKeywords) + "extern \"C\" {\n" + TSR_EMU_STRINGIFY(TSR_EMU_ABI_DECLARATIONS) + "\n}\n" +
         kRuntime + (dialect == EmulatedDialect::hip ? kHipRuntime : kCudaRuntime);
}

std::vector<std::string> emulation_check_flags() {
  return {"-fsanitize=thread,array-bounds", "-fno-sanitize-recover=array-bounds",
          // Reports name the file only, and the module does not embed the build directory.
          "-fsanitize-undefined-strip-path-components=-1",
          // Only plain loads and stores: entry/exit bookkeeping is not needed, the
          // primitives' relaxed atomics are checked by the primitives, and memcpy
          // stays an intrinsic instead of a call into a libc interceptor.
          "-mllvm", "-tsan-instrument-func-entry-exit=0", "-mllvm", "-tsan-instrument-atomics=0", "-mllvm",
          "-tsan-instrument-memintrinsics=0"};
}

std::string emulation_entry(const KernelSpec& spec) {
  const KernelAbi abi = kernel_abi(spec);
  std::string call;
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding& b = abi.bindings[i];
    call += i ? ", " : "";
    // An f32 buffer of a 16-bit kernel (attention's lse, alibi_slopes) is float, as the signature says.
    const char* pointer = b.dtype == spec.dtype ? "(tsr_t*)args[" : "(float*)args[";
    call += (b.role == Role::scalar ? "*(const long long*)args[" : pointer) + std::to_string(i) + "]";
  }
  // The entry points are the emulator's, not the kernel's: not instrumented.
  return "\n// ---- emulator entry (not part of the emitted kernel)\n"
         "TSR_EMU_HOOK void tsr_emu_entry(void* const* args) { " + spec.name + "(" + call + "); }\n"
         "extern \"C\" char __start_tsr_emu_shared[] __attribute__((weak));\n"
         "extern \"C\" char __stop_tsr_emu_shared[] __attribute__((weak));\n"
         "TSR_EMU_HOOK void tsr_emu_shared_range(char** begin, char** end) {\n"
         "  *begin = __start_tsr_emu_shared; *end = __stop_tsr_emu_shared;\n}\n";
}

}  // namespace tsr::cuda::emu
