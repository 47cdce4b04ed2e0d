// Thread safety of libtesserart (docs/runtime.md, "Threads"): the scenarios
// of tests/threads/stub_threads.h on the archive as a file and in memory
// (the ThreadSanitizer build runs the same ones, ctest label tsan), and the
// thread-local messages' owners.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "../threads/stub_threads.h"
#include "../threads/stub_threads_archive.h"
#include "archive/archive_writer.h"
#include "support/subprocess.h"
#include "tesserart.h"

namespace tsr {
namespace {

class StubThreads : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::make_temp_dir("threads");
    std::string path = (dir_ / "threads.tfat").string();
    ASSERT_TRUE(write_archive(testing::threads_contents(), path).ok());
    sources_ = threads::sources_for(path);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

  static void expect_passes(std::string (*scenario)(const threads::ArchiveSource&)) {
    ASSERT_EQ(sources_.size(), 2u);
    for (const threads::ArchiveSource& source : sources_) EXPECT_EQ(scenario(source), "");
  }

  static std::filesystem::path dir_;
  static std::vector<threads::ArchiveSource> sources_;
};
std::filesystem::path StubThreads::dir_;
std::vector<threads::ArchiveSource> StubThreads::sources_;

TEST_F(StubThreads, SameKernelFromManyThreads) { expect_passes(threads::same_kernel_launches); }

TEST_F(StubThreads, DifferentKernelsOfOneArchiveFromManyThreads) {
  expect_passes(threads::different_kernel_launches);
}

TEST_F(StubThreads, RacingFirstLoadsCheckAndReadOnce) { expect_passes(threads::concurrent_first_loads); }

TEST_F(StubThreads, RacingFirstRecordChecksRunOnce) { expect_passes(threads::racing_kernel_checks); }

TEST_F(StubThreads, VerifyWhileOtherThreadsLoad) { expect_passes(threads::verify_during_loads); }

TEST_F(StubThreads, MessagesArePerThread) { expect_passes(threads::per_thread_messages); }

// Messages are keyed by an owner id, not by address: an archive opened at a
// closed archive's address, or a kernel loaded at an unloaded kernel's,
// starts with no message. The probe runs with glibc's tcache off, where
// calloc hands the freed block straight back (reused=1).
TEST_F(StubThreads, NewOwnerAtAFreedOwnersAddressHasNoMessage) {
  const char* old = std::getenv("GLIBC_TUNABLES");
  std::string saved = old ? old : "";
  setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
  const ProcessResult r = run_process({TSR_MESSAGE_REUSE_PROBE, sources_[0].path});
  if (old) setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "archive reused=1 message=''\nkernel reused=1 message=''\n");
}

}  // namespace
}  // namespace tsr
