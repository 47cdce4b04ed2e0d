// Hostile files around the compiler: inputs that are FIFOs, devices or too
// large; outputs that name an input, another output, a device or a symlink;
// leftovers of a run killed with SIGKILL. tests/e2e/hostile_files.sh checks
// the same rules through the command line.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/file_io.h"
#include "support/stale_leftovers.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tsr_file_io_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void put(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
  std::string get(const std::string& name) const {
    std::ifstream in(path(name));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
};

TEST_F(FileIoTest, ReadsARegularFileWithinTheLimit) {
  put("s.yaml", "tesserac: 1\n");
  Expected<std::string> text = read_input_file(path("s.yaml"), 12, "spec file");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "tesserac: 1\n");
}

TEST_F(FileIoTest, RefusesAFileOverTheLimitWithoutReadingIt) {
  put("s.yaml", std::string(13, 'x'));
  Expected<std::string> text = read_input_file(path("s.yaml"), 12, "spec file");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), "spec file is 13 bytes, over the limit of 12 bytes");
  EXPECT_EQ(text.error().kind(), ErrorKind::invalid_input);
}

TEST_F(FileIoTest, RefusesAFifoWithoutBlocking) {
  ASSERT_EQ(mkfifo(path("f.yaml").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  Expected<std::string> text = read_input_file(path("f.yaml"), 1 << 20, "spec file");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), "not a regular file (a FIFO)");
}

TEST_F(FileIoTest, RefusesDevicesAndDirectories) {
  Expected<std::string> zero = read_input_file("/dev/zero", 1 << 20, "spec file");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message(), "not a regular file (a character device)");
  Expected<std::vector<uint8_t>> dir = read_file_bytes(dir_.string());
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().message(), dir_.string() + ": not a regular file (a directory)");
  Expected<std::vector<uint8_t>> missing = read_file_bytes(path("nope"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), path("nope") + ": cannot read: no such file or directory");
}

TEST_F(FileIoTest, OutputThatIsAnInputIsRefusedByInodeAndByPath) {
  put("s.yaml", "spec");
  fs::create_hard_link(path("s.yaml"), path("hard.yaml"));
  fs::create_symlink("s.yaml", path("soft.yaml"));
  const std::vector<CommandPath> inputs = {{"spec", path("s.yaml")}};
  for (const std::string& out : {path("s.yaml"), path("hard.yaml"), path("soft.yaml"), dir_.string() + "/./s.yaml"}) {
    Status s = check_output_paths(inputs, {{"-o", out}});
    ASSERT_FALSE(s.ok()) << out;
    EXPECT_EQ(s.error().kind(), ErrorKind::usage);
    EXPECT_EQ(s.error().message(),
              "-o '" + out + "' is the same file as the input spec '" + path("s.yaml") + "' (an output must not overwrite an input)");
  }
  EXPECT_EQ(get("s.yaml"), "spec");
}

TEST_F(FileIoTest, TwoOutputsNamingOneFileAreRefusedEvenBeforeItExists) {
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  Status s = check_output_paths({}, {{"-o", "k.tfat"}, {"--depfile", "./k.tfat"}});
  fs::current_path(cwd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "--depfile './k.tfat' is the same file as -o 'k.tfat' (each output needs a file of its own)");
  // Devices may repeat: discarding two outputs is fine.
  EXPECT_TRUE(check_output_paths({}, {{"-o", "/dev/null"}, {"--depfile", "/dev/null"}}).ok());
}

TEST_F(FileIoTest, OutputThatIsAFifoOrDirectoryIsRefused) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  Status fifo = check_output_paths({}, {{"-o", path("fifo")}});
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().message(), "cannot write -o '" + path("fifo") +
                                        "': it is a FIFO (an output must be a regular file, a character device or /dev/stdout)");
  Status dir = write_file_atomic(dir_.string(), "x");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().message(), "cannot write '" + dir_.string() +
                                       "': it is a directory (an output must be a regular file, a character device or /dev/stdout)");
}

TEST_F(FileIoTest, WritingThroughASymlinkReplacesTheTargetAndKeepsTheLink) {
  put("real.c", "old");
  fs::create_symlink("real.c", path("link.c"));
  ASSERT_TRUE(write_file_atomic(path("link.c"), "new").ok());
  EXPECT_TRUE(fs::is_symlink(path("link.c")));
  EXPECT_EQ(get("real.c"), "new");
  // A dangling link creates its target, as a shell's > does.
  fs::create_symlink("made.c", path("dangling.c"));
  ASSERT_TRUE(write_file_atomic(path("dangling.c"), "made").ok());
  EXPECT_TRUE(fs::is_symlink(path("dangling.c")));
  EXPECT_EQ(get("made.c"), "made");
}

TEST_F(FileIoTest, WritingToACharacterDeviceWritesThroughIt) {
  struct stat before;
  ASSERT_EQ(stat("/dev/null", &before), 0);
  ASSERT_TRUE(write_file_atomic("/dev/null", "discarded").ok());
  struct stat after;
  ASSERT_EQ(stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_rdev, after.st_rdev);
}

// A process id that is not running: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

void make_old(const std::string& p) {
  const struct timeval old[2] = {{time(nullptr) - 2 * kStaleAfterSeconds, 0}, {time(nullptr) - 2 * kStaleAfterSeconds, 0}};
  ASSERT_EQ(lutimes(p.c_str(), old), 0);
}

TEST_F(FileIoTest, StaleLeftoversOfDeadProcessesAreSweptLiveOnesKept) {
  const pid_t dead = dead_pid();
  const pid_t live = fork();
  if (live == 0) {
    pause();
    _exit(0);
  }
  const std::string prefix = ".k.tfat.tmp-";
  const std::string stale = prefix + std::to_string(dead) + "-Ab12Cd";
  const std::string of_live = prefix + std::to_string(live) + "-Ab12Cd";
  const std::string fresh = prefix + std::to_string(dead) + "-Zz99Zz";   // just written: maybe another namespace's
  const std::string not_ours = prefix + std::to_string(dead) + "-short";  // five characters, not mkstemp's six
  const std::string other_name = ".x.tfat.tmp-" + std::to_string(dead) + "-Ab12Cd";
  for (const std::string& n : {stale, of_live, fresh, not_ours, other_name}) put(n, "partial");
  fs::create_directory(path(prefix + std::to_string(dead) + "-DirDir"));
  put(prefix + std::to_string(dead) + "-DirDir/inside", "x");
  for (const std::string& n : {stale, of_live, not_ours, other_name, prefix + std::to_string(dead) + "-DirDir"})
    make_old(path(n));

  ASSERT_TRUE(write_file_atomic(path("k.tfat"), "archive").ok());
  kill(live, SIGKILL);
  waitpid(live, nullptr, 0);

  EXPECT_FALSE(fs::exists(path(stale)));
  EXPECT_FALSE(fs::exists(path(prefix + std::to_string(dead) + "-DirDir")));
  EXPECT_TRUE(fs::exists(path(of_live)));
  EXPECT_TRUE(fs::exists(path(fresh)));
  EXPECT_TRUE(fs::exists(path(not_ours)));
  EXPECT_TRUE(fs::exists(path(other_name)));   // only leftovers of the file being written
  EXPECT_EQ(get("k.tfat"), "archive");
}

TEST_F(FileIoTest, StaleScratchDirectoriesAreSwept) {
  setenv("TMPDIR", dir_.c_str(), 1);
  const std::string stale = path("tesserac-unit-" + std::to_string(dead_pid()) + "-Qq12Qq");
  fs::create_directories(stale + "/sub");
  make_old(stale);
  {
    Expected<ScratchDir> scratch = ScratchDir::create("tesserac-unit");
    ASSERT_TRUE(scratch.ok());
    EXPECT_EQ(fs::path(scratch->path()).filename().string().rfind("tesserac-unit-" + std::to_string(getpid()) + "-", 0), 0u);
  }
  unsetenv("TMPDIR");
  EXPECT_FALSE(fs::exists(stale));
}

}  // namespace
}  // namespace tsr
