// run_process: output, exit status, timeouts that kill the whole process
// group, and a parent in a hostile state (SIGCHLD or SIGPIPE ignored, stdout
// closed, descriptors without O_CLOEXEC). The hostile states are set up in a
// forked child so the test process itself is left alone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "archive_test_support.h"
#include "support/decimal.h"
#include "support/subprocess.h"

namespace tsr {
namespace {

using testing::run_in_child;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// True when `pid` no longer runs (gone, or a zombie waiting for its parent).
bool process_gone(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && line.compare(paren + 2, 1, "Z") == 0;
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old) old_ = old;
    had_ = old != nullptr;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Subprocess, CapturesOutputAndExitCode) {
  const ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 7"}, 10);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.output, "out\nerr\n");
}

TEST(Subprocess, DeathBySignalIs128PlusSignal) {
  const ProcessResult r = run_process({"sh", "-c", "kill -TERM $$"}, 10);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
}

TEST(Subprocess, MissingToolCannotStart) {
  const ProcessResult r = run_process({"/nonexistent/tool", "--version"}, 10);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.error, "cannot start '/nonexistent/tool': No such file or directory");
}

TEST(Subprocess, TimeoutReturnsPromptlyWithTheCommand) {
  const Clock::time_point start = Clock::now();
  const ProcessResult r = run_process({"sleep", "30"}, 1);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.error, "toolchain command timed out after 1 s: sleep 30");
}

// The background sleep keeps the output pipe open after the shell would have
// gone: the timeout must not wait for EOF, and it must kill the grandchild.
TEST(Subprocess, TimeoutKillsTheWholeProcessGroup) {
  const Clock::time_point start = Clock::now();
  const ProcessResult r = run_process({"sh", "-c", "sleep 30 & echo $!; wait"}, 1);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_EQ(r.error, "toolchain command timed out after 1 s: sh -c sleep 30 & echo $!; wait");
  std::string grandchild = first_line(r.output);
  ASSERT_FALSE(grandchild.empty());
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {   // the kernel delivers SIGKILL asynchronously
    gone = process_gone(grandchild);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "pid " << grandchild << " survived the timeout";
}

TEST(Subprocess, ZeroTimeoutMeansNoLimit) {
  const ProcessResult r = run_process({"sh", "-c", "sleep 1; echo done"}, 0);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.output, "done\n");
}

TEST(Subprocess, OutputBeyondTheCapIsDroppedNotBlocking) {
  const ProcessResult r = run_process({"head", "-c", std::to_string(kMaxCapturedOutput + 100), "/dev/zero"}, 10);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.size(), kMaxCapturedOutput + std::string("\n[100 more bytes of output dropped]\n").size());
  EXPECT_EQ(r.output.substr(kMaxCapturedOutput), "\n[100 more bytes of output dropped]\n");
}

// With SIGCHLD ignored the kernel reaps the child itself; the old loop spun
// on waitpid's ECHILD forever. Now it is an error, and it comes promptly.
TEST(Subprocess, SigchldIgnoredIsAnErrorNotAHang) {
  const int rc = run_in_child([] {
    alarm(20);   // the old code spun forever: die by SIGALRM instead of hanging the suite
    signal(SIGCHLD, SIG_IGN);
    const ProcessResult r = run_process({"true"}, 10);
    return r.error == "cannot wait for 'true': No child processes (is SIGCHLD ignored?)" && r.exit_code == -1 ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
}

// pipe() hands out the lowest free descriptors: with stdout closed, one end
// was fd 1 and the child's dup2 and close actions clobbered it, so no output
// came back (and `clang --version` looked broken).
TEST(Subprocess, WorksWithStandardDescriptorsClosed) {
  const int rc = run_in_child([] {
    alarm(20);
    close(0);
    close(1);
    close(2);
    const ProcessResult r = run_process({"sh", "-c", "echo hi"}, 10);
    return r.error.empty() && r.exit_code == 0 && r.output == "hi\n" ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
}

TEST(Subprocess, DescriptorsWithoutCloexecAreNotInherited) {
  const int fd = open("/dev/null", O_RDONLY);   // deliberately without O_CLOEXEC
  ASSERT_GE(fd, 3);
  const std::string check = "test -e /proc/self/fd/" + std::to_string(fd) + " && echo leaked || echo closed";
  const ProcessResult r = run_process({"sh", "-c", check}, 10);
  close(fd);
  EXPECT_EQ(r.output, "closed\n");
}

// A parent that ignores SIGPIPE (or SIGCHLD) must not pass that on to tools.
TEST(Subprocess, ChildStartsWithSigpipeAtDefault) {
  const int rc = run_in_child([] {
    signal(SIGPIPE, SIG_IGN);
    const ProcessResult r = run_process({"grep", "^SigIgn:", "/proc/self/status"}, 10);
    std::istringstream in(r.output.substr(r.output.find(':') + 1));
    unsigned long long ignored = 0;
    in >> std::hex >> ignored;
    return r.exit_code == 0 && (ignored & (1ull << (SIGPIPE - 1))) == 0 ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
}

// Ctrl-C reaches only tesserac's process group; tesserac passes it on to the
// child's group and then dies of the same signal.
TEST(Subprocess, InterruptIsForwardedToTheChildGroup) {
  const std::filesystem::path dir = testing::make_temp_dir("forward");
  const std::filesystem::path started = dir / "started", marker = dir / "forwarded";
  const std::string script = "trap 'echo forwarded > " + marker.string() + "; kill $!; exit 0' INT; touch " +
                             started.string() + "; sleep 30 </dev/null >/dev/null 2>&1 & wait";
  const int rc = run_in_child([&] {
    alarm(20);
    std::thread([&] {   // Ctrl-C once the child runs (a loaded machine may take a while)
      while (!std::filesystem::exists(started)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      kill(getpid(), SIGINT);
    }).detach();
    run_process({"sh", "-c", script}, 20);
    return 0;
  });
  EXPECT_EQ(rc, -SIGINT);
  bool forwarded = false;
  for (int i = 0; i < 250 && !forwarded; ++i) {
    forwarded = std::filesystem::exists(marker);
    if (!forwarded) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(forwarded);
  std::filesystem::remove_all(dir);
}

TEST(Subprocess, ToolTimeoutFromTheEnvironment) {
  {
    ScopedEnv unset("TESSERAC_TOOL_TIMEOUT", nullptr);
    ASSERT_TRUE(tool_timeout_seconds());
    EXPECT_EQ(*tool_timeout_seconds(), kDefaultToolTimeoutSeconds);
  }
  for (const char* good : {"0", "1", "604800"}) {
    ScopedEnv set("TESSERAC_TOOL_TIMEOUT", good);
    ASSERT_TRUE(tool_timeout_seconds()) << good;
    EXPECT_EQ(*tool_timeout_seconds(), std::stoull(good));
  }
  for (const char* bad : {"", "-1", "+5", " 5", "5s", "1e3", "0x10", "604801", "18446744073709551616"}) {
    ScopedEnv set("TESSERAC_TOOL_TIMEOUT", bad);
    Expected<uint64_t> t = tool_timeout_seconds();
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().kind(), ErrorKind::usage);
    EXPECT_EQ(t.error().message(), std::string("invalid TESSERAC_TOOL_TIMEOUT '") + bad +
                                       "' (expected whole seconds from 0 to 604800; 0 means no limit)");
    // run_process refuses to run rather than fall back silently.
    EXPECT_EQ(run_process({"true"}).error, t.error().message());
  }
}

TEST(Decimal, StrictUnsigned64) {
  EXPECT_EQ(parse_decimal_u64("0"), 0u);
  EXPECT_EQ(parse_decimal_u64("007"), 7u);
  EXPECT_EQ(parse_decimal_u64("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", "18446744073709551616", "99999999999999999999999", "-1", "+1", " 1", "1 ", "0x10", "1e3",
                          "1.0"})
    EXPECT_EQ(parse_decimal_u64(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace tsr
