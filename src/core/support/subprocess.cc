#include "support/subprocess.h"

#include <atomic>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <thread>

#include "support/child_process_groups.h"
#include "support/decimal.h"

extern char** environ;

namespace tsr {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

class Deadline {
 public:
  explicit Deadline(uint64_t seconds)
      : unlimited_(seconds == 0),
        at_(Clock::now() + std::chrono::seconds(std::min(seconds, kMaxToolTimeoutSeconds))) {}
  bool passed() const { return !unlimited_ && Clock::now() >= at_; }
  // The wait before looking again: the time left, capped so callers recheck.
  milliseconds next_wait(milliseconds cap) const {
    if (unlimited_) return cap;
    const auto left = std::chrono::ceil<milliseconds>(at_ - Clock::now());
    return std::clamp(left, milliseconds(0), cap);
  }

 private:
  bool unlimited_;
  Clock::time_point at_;
};

class OwnedFd {
 public:
  explicit OwnedFd(int fd = -1) : fd_(fd) {}
  ~OwnedFd() { reset(); }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
  return line;
}

// pipe() returns the lowest free numbers, so with stdout closed one end would
// be fd 1, and the child's dup2 onto 1 and 2 would clobber it.
bool move_above_stdio(OwnedFd& fd) {
  if (fd.get() > 2) return true;
  const int moved = fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  fd.reset(moved);
  return moved >= 0;
}

// Both ends close-on-exec: a child started by another thread meanwhile must
// not hold the write end, or EOF would wait for that child too.
std::string open_output_pipe(OwnedFd& read_end, OwnedFd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("cannot create a pipe: ") + std::strerror(errno);
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  if (!move_above_stdio(read_end) || !move_above_stdio(write_end))
    return std::string("cannot create a pipe: ") + std::strerror(errno);
  return "";
}

// The child: stdin /dev/null, stdout and stderr the pipe, nothing else open;
// its own process group; SIGCHLD and SIGPIPE at their defaults, because a
// parent that ignores them would otherwise pass that on through exec (clang's
// driver waits for cc1 and breaks with SIGCHLD ignored).
int spawn(const std::vector<std::string>& argv, int out_fd, const sigset_t& child_mask, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);   // descriptors opened without O_CLOEXEC
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGCHLD);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &child_mask);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// Reads until EOF (true) or the deadline (false). Output past the cap is read
// and dropped, so a chatty tool never blocks on a full pipe.
bool read_until_eof(int fd, const Deadline& deadline, std::string& output) {
  char buf[65536];
  size_t dropped = 0;
  for (;;) {
    if (deadline.passed()) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(deadline.next_wait(milliseconds(60000)).count()));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;
    }
    const size_t keep = std::min(static_cast<size_t>(n), kMaxCapturedOutput - output.size());
    output.append(buf, keep);
    dropped += static_cast<size_t>(n) - keep;
  }
  if (dropped) output += "\n[" + std::to_string(dropped) + " more bytes of output dropped]\n";
  return true;
}

enum class WaitOutcome { ended, timed_out, failed };

// Waits for the child to end without reaping it (WNOWAIT): until it is
// reaped its pid, and so its process group id, cannot be reused, which keeps
// a kill of the group and a forwarded signal from reaching a stranger.
WaitOutcome wait_for_end(pid_t pid, const Deadline& deadline, siginfo_t& info, int& error) {
  milliseconds pause(1);
  for (;;) {
    info = {};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
      if (info.si_pid == pid) return WaitOutcome::ended;
    } else if (errno != EINTR) {
      error = errno;
      return WaitOutcome::failed;
    }
    if (deadline.passed()) return WaitOutcome::timed_out;
    std::this_thread::sleep_for(std::max(milliseconds(1), deadline.next_wait(pause)));
    pause = std::min(pause * 2, milliseconds(50));
  }
}

void reap(pid_t pid) {
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Expected<uint64_t> tool_timeout_seconds() {
  const char* env = std::getenv("TESSERAC_TOOL_TIMEOUT");
  if (!env) return kDefaultToolTimeoutSeconds;
  const std::optional<uint64_t> seconds = parse_decimal_u64(env);
  if (!seconds || *seconds > kMaxToolTimeoutSeconds)
    return Error(ErrorKind::usage, std::string("invalid TESSERAC_TOOL_TIMEOUT '") + env +
                                       "' (expected whole seconds from 0 to " +
                                       std::to_string(kMaxToolTimeoutSeconds) + "; 0 means no limit)");
  return *seconds;
}

ProcessResult run_process(const std::vector<std::string>& argv) {
  Expected<uint64_t> timeout = tool_timeout_seconds();
  if (!timeout) {
    ProcessResult result;
    result.error = timeout.error().message();
    return result;
  }
  return run_process(argv, *timeout);
}

ProcessResult run_process(const std::vector<std::string>& argv, uint64_t timeout_seconds) {
  ProcessResult result;
  if (argv.empty()) {
    result.error = "empty command line";
    return result;
  }
  log_command(argv);
  OwnedFd read_end, write_end;
  result.error = open_output_pipe(read_end, write_end);
  if (!result.error.empty()) return result;

  pid_t pid = 0;
  std::optional<ChildGroupRegistration> registration;
  {
    ForwardedSignalsBlocked blocked;
    const int rc = spawn(argv, write_end.get(), blocked.previous_mask(), pid);
    if (rc != 0) {
      result.error = "cannot start '" + argv[0] + "': " + std::strerror(rc);
      return result;
    }
    registration.emplace(pid);
  }
  write_end.reset();

  const Deadline deadline(timeout_seconds);
  siginfo_t info{};
  int wait_error = 0;
  WaitOutcome outcome = WaitOutcome::timed_out;
  if (read_until_eof(read_end.get(), deadline, result.output)) outcome = wait_for_end(pid, deadline, info, wait_error);
  read_end.reset();
  if (outcome == WaitOutcome::timed_out) {
    kill(-pid, SIGKILL);   // the whole group: cc1, ld, a shell's children
    kill(pid, SIGKILL);    // in case the tool moved itself to another group
  }
  registration.reset();
  if (outcome != WaitOutcome::failed) reap(pid);

  switch (outcome) {
    case WaitOutcome::ended:
      result.exit_code = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
      break;
    case WaitOutcome::timed_out:
      result.error = "toolchain command timed out after " + std::to_string(timeout_seconds) +
                     " s: " + command_line(argv);
      break;
    case WaitOutcome::failed:
      result.error = "cannot wait for '" + argv[0] + "': " + std::strerror(wait_error) +
                     (wait_error == ECHILD ? " (is SIGCHLD ignored?)" : "");
      break;
  }
  return result;
}

std::string first_line(const std::string& text) {
  const size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

namespace {
std::atomic<bool> g_log_commands{false};
}  // namespace

void set_log_commands(bool on) { g_log_commands = on; }

void log_command(const std::vector<std::string>& argv) {
  if (!g_log_commands && !std::getenv("TESSERAC_VERBOSE")) return;
  std::fprintf(stderr, "tesserac: run: %s\n", command_line(argv).c_str());
}

}  // namespace tsr
