#include "cli/process_setup.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace tsr::cli {

namespace {

// A closed 0, 1 or 2 would be handed out by the next open() or pipe(): the
// archive we write or a compiler's pipe would become "stdout". Like glibc does
// for set-uid programs (csu/check_fds.c), the slot gets a descriptor that
// fails the same way a closed one does: stdin write-only on /dev/full,
// stdout and stderr read-only on /dev/null, so writing them still fails with
// EBADF and gets reported.
void occupy_if_closed(int fd, const char* device, int flags) {
  if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) return;
  const int opened = open(device, flags | O_NOCTTY);
  if (opened >= 0 && opened != fd) {
    dup2(opened, fd);
    close(opened);
  }
}

}  // namespace

void prepare_process() {
  occupy_if_closed(0, "/dev/full", O_WRONLY);
  occupy_if_closed(1, "/dev/null", O_RDONLY);
  occupy_if_closed(2, "/dev/null", O_RDONLY);
  // SIGCHLD ignored is inherited through exec, and with it the kernel reaps
  // children itself: waitpid then fails with ECHILD and no exit status of a
  // compile step can be known. An exec'd program cannot have inherited a
  // handler, so the default is what the parent meant.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, nullptr);
}

}  // namespace tsr::cli
