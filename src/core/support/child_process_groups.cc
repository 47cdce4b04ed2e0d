#include "support/child_process_groups.h"

#include <atomic>
#include <cerrno>
#include <mutex>

namespace tsr {

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Lock-free slots, because the signal handler reads them. More concurrent
// children than slots only lose forwarding for the extra ones.
constexpr int kSlots = 64;
std::atomic<pid_t> live_groups[kSlots];

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwarded) sigaddset(&set, sig);
  return set;
}

// Async-signal-safe: kill, sigaction and raise only. The re-raised signal is
// blocked inside the handler and ends the process with the default action
// when the handler returns, so the parent sees the real cause of death.
void forward_then_die(int sig) {
  const int saved_errno = errno;
  for (std::atomic<pid_t>& group : live_groups) {
    const pid_t g = group.load(std::memory_order_relaxed);
    if (g > 0) kill(-g, sig);
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
  errno = saved_errno;
}

void install_forwarding_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kForwarded) {
      struct sigaction current {};
      if (sigaction(sig, nullptr, &current) != 0) continue;
      if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL) continue;
      struct sigaction forward {};
      forward.sa_handler = forward_then_die;
      sigemptyset(&forward.sa_mask);
      forward.sa_flags = SA_RESTART;
      sigaction(sig, &forward, nullptr);
    }
  });
}

}  // namespace

ForwardedSignalsBlocked::ForwardedSignalsBlocked() {
  const sigset_t set = forwarded_set();
  pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

ForwardedSignalsBlocked::~ForwardedSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

ChildGroupRegistration::ChildGroupRegistration(pid_t group) {
  install_forwarding_once();
  for (int i = 0; i < kSlots; ++i) {
    pid_t empty = 0;
    if (live_groups[i].compare_exchange_strong(empty, group)) {
      slot_ = i;
      return;
    }
  }
}

ChildGroupRegistration::~ChildGroupRegistration() {
  if (slot_ >= 0) live_groups[slot_].store(0);
}

}  // namespace tsr
