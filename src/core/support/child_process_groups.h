// Subprocesses run in a process group of their own, so that a timeout can kill
// a compiler driver together with the cc1 and ld it started. The terminal then
// sends Ctrl-C only to tesserac's group; like ninja, tesserac forwards the
// signals that end it to every live child group before it dies.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace tsr {

// Blocks the forwarded signals in this thread while a child is being started
// and registered, so none handled here falls in between. (Another thread of
// the process may still take one in that window; tesserac spawns from one.)
class ForwardedSignalsBlocked {
 public:
  ForwardedSignalsBlocked();
  ~ForwardedSignalsBlocked();
  ForwardedSignalsBlocked(const ForwardedSignalsBlocked&) = delete;
  ForwardedSignalsBlocked& operator=(const ForwardedSignalsBlocked&) = delete;
  // The mask from before: what the child should start with.
  const sigset_t& previous_mask() const { return previous_; }

 private:
  sigset_t previous_;
};

// While alive, SIGINT, SIGTERM, SIGHUP and SIGQUIT reaching tesserac are sent
// on to process group `group`. Signals the parent left ignored (nohup) or
// handled stay untouched.
class ChildGroupRegistration {
 public:
  explicit ChildGroupRegistration(pid_t group);
  ~ChildGroupRegistration();
  ChildGroupRegistration(const ChildGroupRegistration&) = delete;
  ChildGroupRegistration& operator=(const ChildGroupRegistration&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace tsr
