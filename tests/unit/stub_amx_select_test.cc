// The x86:v4+amx variant is chosen only where the CPU has AMX (amx-tile,
// amx-bf16, the OS's saved tile state) and Linux grants this process tile
// data; otherwise the next tier runs. The permission request is made once,
// before an AMX variant is first picked, through the stub's test switch
// (tsr_x86_amx_request_for_tests) where the CPU has no AMX to ask about.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_test_support.h"
#include "runtime-stub/src/tsr_cpu_x86.h"
#include "tesserart.h"

namespace tsr {
namespace {

std::atomic<int> g_requests{0};
int grant() { return ++g_requests, 0; }
int refuse() { return ++g_requests, -1; }

// Restores the real permission request after each test.
class StubAmxSelect : public ::testing::Test {
 protected:
  void SetUp() override {
    ArchiveContents c = testing::sample_contents();
    c.kernels[0].variants.push_back(testing::x86_artifact("vadd", "v4", testing::vadd_object(4)));
    c.kernels[0].variants.push_back(testing::x86_artifact("vadd", "v4+amx", testing::vadd_object(5)));
    bytes_ = *serialize_archive(c);
    ASSERT_EQ(tsr_archive_open_memory(bytes_.data(), bytes_.size(), nullptr, &archive_), TSR_OK);
    ASSERT_EQ(tsr_archive_find_kernel(archive_, "vadd", &kernel_), TSR_OK);
    g_requests = 0;
  }
  void TearDown() override {
    tsr_x86_amx_request_for_tests(nullptr);
    tsr_archive_close(archive_);
  }
  std::string select(int x86_level) {
    tsr_select_options options{"x86", x86_level};
    tsr_selection sel;
    if (tsr_kernel_select(archive_, kernel_, &options, &sel) != TSR_OK) return "error";
    return sel.arch;
  }
  std::vector<uint8_t> bytes_;
  tsr_archive* archive_ = nullptr;
  size_t kernel_ = 0;
};

TEST_F(StubAmxSelect, AmxAndPermissionSelectV4Amx) {
  tsr_x86_amx_request_for_tests(grant);
  EXPECT_EQ(select(4 | TSR_X86_AMX), "v4+amx");
  EXPECT_EQ(select(4 | TSR_X86_AMX), "v4+amx");
  EXPECT_EQ(g_requests, 1) << "the permission is requested once per process";
}

TEST_F(StubAmxSelect, RefusedPermissionSelectsTheNextTier) {
  tsr_x86_amx_request_for_tests(refuse);
  EXPECT_EQ(select(4 | TSR_X86_AMX), "v4");
  EXPECT_EQ(select(4 | TSR_X86_AMX), "v4");
  EXPECT_EQ(g_requests, 1) << "a refusal is remembered, not asked again";
}

TEST_F(StubAmxSelect, WithoutAmxNothingIsRequested) {
  tsr_x86_amx_request_for_tests(grant);
  EXPECT_EQ(select(4), "v4");
  EXPECT_EQ(select(3 | TSR_X86_AMX), "v3");   // AMX variants are v4 code
  EXPECT_EQ(g_requests, 0);
}

TEST_F(StubAmxSelect, ConcurrentFirstSelectionsRequestOnce) {
  tsr_x86_amx_request_for_tests(grant);
  std::vector<std::thread> threads;
  std::atomic<int> amx{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] { amx += select(4 | TSR_X86_AMX) == "v4+amx"; });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(amx, 8);
  EXPECT_EQ(g_requests, 1);
}

// The real request (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)):
// Linux grants it exactly where the CPU and OS support AMX.
TEST_F(StubAmxSelect, TheRealRequestMatchesTheDetectedFeatures) {
  const bool amx = (tsr_x86_features() & TSR_X86_FEATURE_AMX) != 0;
  EXPECT_EQ(tsr_x86_amx_permitted(), amx ? 1 : 0);
  if (tsr_x86_level() >= 4) EXPECT_EQ(select(0), amx ? "v4+amx" : "v4");
}

}  // namespace
}  // namespace tsr
