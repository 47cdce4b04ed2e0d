// Several x86 kernels loaded at once: each load gets its own library. glibc's
// dlopen hands back an already loaded library whose path string matches, and
// the stub loads from /proc/self/fd/N; with N closed after dlopen, the next
// load reused N and got the previous kernel's code.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "tesserart.h"

extern "C" {
#include "../../runtime-stub/src/tsr_internal.h"   // the backend seam, for the fallback path
}

namespace tsr {
namespace {

// out[i] = in0[i] * in1[i] + offset: a kernel whose results differ from vadd's.
std::vector<uint8_t> vmul_object(int offset, const std::string& extra_flag = "") {
  return testing::compile_shared_object(
      testing::x86_kernel_source("vmul_tsr_entry",
                                 "  const float* x = (const float*)b[0]; const float* y = (const float*)b[1];\n"
                                 "  float* o = (float*)b[2];\n  (void)ctx;\n"
                                 "  for (int64_t i = 0; i < s[0]; ++i) o[i] = x[i] * y[i] + " +
                                     std::to_string(offset) + ".0f;\n"),
      "vmul", extra_flag);
}

// sample_contents plus vmul (x86:v1, offset 100), with the same ABI as vadd.
ArchiveContents two_x86_kernels() {
  ArchiveContents c = testing::sample_contents();
  ArchiveKernel m = c.kernels[0];
  m.name = "vmul";
  m.identity = std::string(63, '0') + "2";
  m.variants = {testing::x86_artifact("vmul", "v1", vmul_object(100))};
  m.verdicts.clear();
  c.kernels.push_back(m);
  return c;
}

struct Buffers {
  std::vector<float> x = std::vector<float>(64), y = std::vector<float>(64), out = std::vector<float>(64, -1.f);
  int64_t n = 64;
  tsr_buffer_arg args[3];
  Buffers() {
    for (int i = 0; i < 64; ++i) { x[i] = float(i); y[i] = 2.f; }
    args[0] = {x.data(), 256, TSR_DTYPE_F32, TSR_ROLE_IN};
    args[1] = {y.data(), 256, TSR_DTYPE_F32, TSR_ROLE_IN};
    args[2] = {out.data(), 256, TSR_DTYPE_F32, TSR_ROLE_OUT};
  }
  // Launches k; out[5] afterwards (x = 5, y = 2).
  float run(tsr_kernel* k) {
    EXPECT_EQ(tsr_kernel_launch(k, args, 3, &n, 1, nullptr), TSR_OK) << tsr_kernel_last_message(k);
    return out[5];
  }
};

class StubX86 : public ::testing::Test {
 protected:
  void open(const ArchiveContents& c) {
    Expected<std::vector<uint8_t>> bytes = serialize_archive(c);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    bytes_ = std::move(*bytes);
    ASSERT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
  }
  tsr_kernel* load(const char* name, int level) {
    tsr_select_options opt{"x86", level};
    tsr_kernel* k = nullptr;
    EXPECT_EQ(tsr_kernel_load(archive_, name, &opt, &k), TSR_OK) << tsr_archive_last_message(archive_);
    return k;
  }
  void TearDown() override { tsr_archive_close(archive_); }
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
};

TEST_F(StubX86, TwoKernelsLoadedAtOnceBothRun) {
  open(two_x86_kernels());
  tsr_kernel* add = load("vadd", 1);
  tsr_kernel* mul = load("vmul", 1);
  ASSERT_NE(add, nullptr);
  ASSERT_NE(mul, nullptr);
  Buffers b;
  EXPECT_EQ(b.run(mul), 5.f * 2.f + 100.f);
  EXPECT_EQ(b.run(add), 5.f + 1.f * 2.f);
  EXPECT_EQ(b.run(mul), 110.f);
  tsr_kernel_unload(add);
  tsr_kernel_unload(mul);
}

// vadd's tiers differ in a factor (v1: 1, v2: 2, v3: 3): each handle must
// run its own tier's code and report its own tier.
TEST_F(StubX86, SameKernelAtThreeTiersRunsEachTiersCode) {
  open(testing::sample_contents());
  tsr_kernel* tiers[3];
  for (int level = 1; level <= 3; ++level) tiers[level - 1] = load("vadd", level);
  Buffers b;
  for (int level = 3; level >= 1; --level) {
    tsr_kernel* k = tiers[level - 1];
    ASSERT_NE(k, nullptr);
    tsr_selection sel;
    ASSERT_EQ(tsr_kernel_selection(k, &sel), TSR_OK);
    EXPECT_EQ(std::string(sel.arch), "v" + std::to_string(level));
    EXPECT_EQ(b.run(k), 5.f + float(level) * 2.f) << "v" << level;
  }
  for (tsr_kernel* k : tiers) tsr_kernel_unload(k);
}

// A library dlclose cannot unload stays mapped under its path; the next
// load must still get its own code, not that library.
TEST_F(StubX86, UndeletableLibraryDoesNotShadowTheNextLoad) {
  ArchiveContents c = two_x86_kernels();
  c.kernels[2].variants = {testing::x86_artifact("vmul", "v1", vmul_object(7, "-Wl,-z,nodelete"))};
  open(c);
  Buffers b;
  for (int round = 0; round < 3; ++round) {
    tsr_kernel* mul = load("vmul", 1);
    ASSERT_NE(mul, nullptr);
    EXPECT_EQ(b.run(mul), 17.f);
    tsr_kernel_unload(mul);
    tsr_kernel* add = load("vadd", 2);
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(b.run(add), 9.f) << "round " << round;
    tsr_kernel_unload(add);
  }
}

// The temporary-file fallback (no memfd_create): also one library per load.
TEST(StubX86Fallback, TemporaryFilesLoadedAtOnceKeepTheirOwnCode) {
  const std::vector<uint8_t>& v1 = testing::vadd_object(1);
  const std::vector<uint8_t>& v2 = testing::vadd_object(2);
  ASSERT_FALSE(v1.empty());
  char msg[256] = "";
  tsr_x86_loaded first{}, second{};
  ASSERT_EQ(tsr_x86_load_with(TSR_X86_SCRATCH_TMPFILE, v1.data(), v1.size(), "vadd_tsr_entry", &first, msg, sizeof msg), TSR_OK) << msg;
  ASSERT_EQ(tsr_x86_load_with(TSR_X86_SCRATCH_TMPFILE, v2.data(), v2.size(), "vadd_tsr_entry", &second, msg, sizeof msg), TSR_OK) << msg;
  EXPECT_NE(first.handle, second.handle);
  Buffers b;
  void* const ptrs[3] = {b.x.data(), b.y.data(), b.out.data()};
  ASSERT_EQ(tsr_x86_call(&first, ptrs, &b.n, msg, sizeof msg), TSR_OK);
  EXPECT_EQ(b.out[5], 7.f);
  ASSERT_EQ(tsr_x86_call(&second, ptrs, &b.n, msg, sizeof msg), TSR_OK);
  EXPECT_EQ(b.out[5], 9.f);
  tsr_x86_unload_loaded(&first);
  tsr_x86_unload_loaded(&second);
  EXPECT_EQ(first.fd, -1);
}

TEST(StubX86Fallback, MissingEntryIsALoadFailureThatLeaksNothing) {
  const std::vector<uint8_t>& v1 = testing::vadd_object(1);
  char msg[256] = "";
  tsr_x86_loaded l{};
  EXPECT_EQ(tsr_x86_load_with(TSR_X86_SCRATCH_MEMFD, v1.data(), v1.size(), "nope", &l, msg, sizeof msg),
            TSR_ERROR_LOAD_FAILED);
  EXPECT_STREQ(msg, "x86 artifact does not export 'nope'");
  EXPECT_EQ(l.handle, nullptr);
  EXPECT_EQ(l.fd, -1);
}

}  // namespace
}  // namespace tsr
