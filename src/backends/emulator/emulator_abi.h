// The interface between an emulated kernel module (the emitted CUDA C++ built
// as host C++, docs/emulator.md) and the emulator that runs it. It is written
// once, as a macro, so the host compiles it and the emulation prelude carries
// the same text into every kernel module (emulator_prelude.cc).
#pragma once

#define TSR_EMU_ABI_DECLARATIONS                                                                      \
  struct tsr_emu_dim3 {                                                                               \
    unsigned x, y, z;                                                                                 \
  };                                                                                                  \
  /* The special registers of the running thread; the emulator repoints   */                        \
  /* tsr_emu_regs before it resumes a thread.                             */                        \
  struct tsr_emu_thread_regs {                                                                        \
    tsr_emu_dim3 thread_idx, block_idx, block_dim, grid_dim;                                          \
    unsigned lane; /* in the warp or wavefront */                                                     \
  };                                                                                                  \
  /* Everything that needs the scheduler or the launch's buffers. Checks  */                        \
  /* return 0 when the access must not happen (an error was recorded).    */                        \
  struct tsr_emu_api {                                                                                \
    int (*check_global)(const void* p, unsigned long long bytes, int is_write);                       \
    void (*syncthreads)(void);                                                                        \
    float (*shfl_xor_sync)(unsigned mask, float v, int lane_mask);                                    \
    void (*cp_async16)(void* smem, const void* gmem, int src_bytes);                                  \
    void (*cp_async_commit)(void);                                                                    \
    void (*cp_async_wait_group)(int pending);                                                         \
    void (*ldmatrix_x4)(unsigned* r, const void* smem, int trans);                                    \
    void (*mma_m16n8k16)(float* d, const unsigned* a, const unsigned* b, int bf16);                   \
    float (*f16_to_f32)(unsigned short h);                                                            \
    unsigned short (*f32_to_f16)(float f);                                                            \
    unsigned short (*f32_to_bf16)(float f);                                                           \
    /* A plain C++ access the module's sanitizer instrumentation reports  */                        \
    /* (racecheck, memcheck of shared and global memory; may stop).       */                        \
    void (*access)(const void* p, unsigned long long bytes, int is_write);                            \
    /* An array index outside its bound (UBSan's out-of-bounds data and   */                        \
    /* value); stops the launch, never returns.                          */                        \
    void (*index_out_of_bounds)(const void* ubsan_data, unsigned long long index);                    \
    void* (*dynamic_shared)(void);                                                                    \
    /* AMD wavefront collectives (hip): ds_bpermute_b32, v_mfma_f32_32x32x8 */                        \
    int (*ds_bpermute)(int addr, int data);                                                           \
    void (*mfma_32x32x8)(float* d, const void* a, const void* b, int bf16);                           \
  };

TSR_EMU_ABI_DECLARATIONS

#define TSR_EMU_STRINGIFY_(...) #__VA_ARGS__
#define TSR_EMU_STRINGIFY(...) TSR_EMU_STRINGIFY_(__VA_ARGS__)
