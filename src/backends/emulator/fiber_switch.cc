// Fiber switching (fiber_switch.h). The x86-64 routine follows the System V
// AMD64 psABI §3.2.1 ("Registers and the Stack Frame"): rbx, rbp, r12-r15,
// the MXCSR control bits and the x87 control word belong to the caller, so a
// switch saves exactly those on the old stack and restores them from the new
// one; everything else is already saved by the compiler around the call.
#include "emulator/fiber_switch.h"

#include <cstdint>

#if defined(__x86_64__)

extern "C" void tsr_emu_fiber_switch(void** save_sp, void* resume_sp);
asm(R"(
  .text
  .globl tsr_emu_fiber_switch
  .hidden tsr_emu_fiber_switch
  .type tsr_emu_fiber_switch, @function
tsr_emu_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tsr_emu_fiber_switch, .-tsr_emu_fiber_switch
)");

namespace tsr::cuda::emu {

void FiberContext::prepare(void* stack, size_t bytes, void (*entry)()) {
  // The frame tsr_emu_fiber_switch pops: control words, six registers, then
  // `ret` to entry with the stack as a call would leave it (rsp % 16 == 8).
  auto* top = reinterpret_cast<uint64_t*>((reinterpret_cast<uintptr_t>(stack) + bytes) & ~uintptr_t{15});
  uint64_t* sp = top - 9;
  sp[0] = 0x1f80 | (uint64_t{0x037f} << 32);   // MXCSR and x87 control word at their reset values
  for (int r = 1; r <= 6; ++r) sp[r] = 0;      // r15, r14, r13, r12, rbx, rbp
  sp[7] = reinterpret_cast<uint64_t>(entry);
  sp[8] = 0;                                    // entry's return address: it never returns
  sp_ = sp;
}

void FiberContext::switch_to(FiberContext& from, FiberContext& to) { tsr_emu_fiber_switch(&from.sp_, to.sp_); }

}  // namespace tsr::cuda::emu

#else  // not x86-64: ucontext

namespace tsr::cuda::emu {

void FiberContext::prepare(void* stack, size_t bytes, void (*entry)()) {
  getcontext(&ctx_);
  ctx_.uc_stack.ss_sp = stack;
  ctx_.uc_stack.ss_size = bytes;
  ctx_.uc_link = nullptr;
  makecontext(&ctx_, entry, 0);
}

void FiberContext::switch_to(FiberContext& from, FiberContext& to) { swapcontext(&from.ctx_, &to.ctx_); }

}  // namespace tsr::cuda::emu

#endif
