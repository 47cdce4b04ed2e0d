// A fiber's saved stack pointer and the switch between fibers. swapcontext
// saves and restores the signal mask with a system call on every switch; the
// emulator switches on every barrier and warp collective (millions of times in
// the emulated test set), and that call was 70% of its time. On x86-64 the
// switch is a dozen instructions (fiber_switch.cc: the System V AMD64 psABI's
// callee-saved registers, MXCSR and the x87 control word); elsewhere it falls
// back to ucontext.
#pragma once

#include <cstddef>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace tsr::cuda::emu {

class FiberContext {
 public:

  // Makes this context start `entry` on the given stack at its next resume.
  // `entry` must never return: it ends by switching away for good.
  void prepare(void* stack, size_t bytes, void (*entry)());
  // Saves the running context into `from` and resumes `to`.
  static void switch_to(FiberContext& from, FiberContext& to);

 private:
#if defined(__x86_64__)
  void* sp_ = nullptr;   // the saved frame (fiber_switch.cc)
#else
  ucontext_t ctx_{};
#endif
};

}  // namespace tsr::cuda::emu
