// `tesserac test` and `build` qualify x86 artifacts through libtesserart
// (docs/oracle.md, "Launch path"): the route is recorded in the verdict, the
// stub's own launch validation is what checks the arguments, and no target
// has a loader of its own to fall back on.
#include <gtest/gtest.h>

#include <type_traits>

#include "archive/archive_writer.h"
#include "driver/assemble_archive.h"
#include "compile/compile.h"
#include "driver/passes.h"
#include "driver/verdict_table.h"
#include "emulator/emulator.h"
#include "launch/stub_launcher.h"
#include "spec_test_util.h"
#include "registry/registry.h"
#include "tesserart.h"
#include "x86_fixture.h"

namespace tsr {
namespace {

using testing::must_decode;

const char* kRelu = R"(tesserac: 1
kernel: ew_relu
family: elementwise
dtype: f32
ops: [relu]
shape: {N: n}
accuracy: {kind: reference_exact}
determinism: deterministic
)";

class OracleLaunchPath : public testing::X86Fixture {
 protected:
  KernelSpec spec_ = must_decode(kRelu);
};

TEST_F(OracleLaunchPath, TestQualifiesX86ThroughLibtesserart) {
  const std::vector<VerdictRow> rows = run_passes({Job{&spec_, {"x86", "v2"}, "", find_target("x86")}}, PassOptions{});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].report.verdict, Verdict::pass) << rows[0].report.reason;
  EXPECT_EQ(rows[0].route, "libtesserart memfd+dlopen");
  EXPECT_NE(render_verdict_json(rows).find("\"route\": \"libtesserart memfd+dlopen\""), std::string::npos);
}

// A short buffer gets the stub's message (tesserart.h's checks), which the
// compiler's former runner worded differently ("..., expected 64").
TEST_F(OracleLaunchPath, LaunchArgumentsAreCheckedByTheStub) {
  Expected<Artifact> art = compile_for_target(spec_, {"x86", "v2"});
  ASSERT_TRUE(art.ok()) << art.error().message();
  Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec_, *art);
  ASSERT_TRUE(stub.ok()) << stub.error().message();
  LaunchArgs args;
  args.buffers = {std::vector<uint8_t>(64), std::vector<uint8_t>(60)};
  args.scalars = {16};
  const Status st = (*stub)->launch(spec_, *art, args);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(),
            "stub: tsr_kernel_launch: buffer too small: ew_relu: buffer 'out' has 60 bytes, needs 64");
  args.buffers[1].resize(64);
  EXPECT_TRUE((*stub)->launch(spec_, *art, args).ok());
}

// No target launches: the oracle takes a Launcher, a Target is none and
// has no run() or launch(), so the stub (or the emulator) is the only way an
// artifact runs. Checked when this file compiles.
template <typename T>
concept Launches = requires(const T& t, const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args) {
  t.launch(spec, artifact, args);
};
template <typename T>
concept Runs = requires(const T& t, const KernelSpec& spec, const Artifact& artifact, LaunchArgs& args) {
  t.run(spec, artifact, args);
};
static_assert(!Launches<Target> && !Runs<Target> && !std::is_base_of_v<Launcher, Target>);
static_assert(Launches<StubLauncher> && Launches<cuda::emu::EmulatorLauncher>);

// test --archive on an archive holding every tier: each row runs exactly
// its own tier (tsr_select_options.arch), not the best one this CPU runs;
// the stub launcher refuses any other selection by name.
TEST_F(OracleLaunchPath, ArchiveRowsRunExactlyTheirTier) {
  if (tsr_x86_level() < 3) GTEST_SKIP() << "needs a CPU with at least two x86 tiers to choose between";
  ArchiveContents contents;
  contents.kernels.push_back(archive_kernel(spec_));
  for (const char* arch : {"v2", "v3", "v4"}) {
    Expected<Artifact> art = compile_for_target(spec_, {"x86", arch});
    ASSERT_TRUE(art.ok()) << art.error().message();
    contents.kernels.back().variants.push_back(*art);
  }
  Expected<std::vector<uint8_t>> bytes = serialize_archive(contents);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  tsr_archive* archive = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes->data(), bytes->size(), nullptr, &archive), TSR_OK);
  std::vector<Job> jobs;
  for (int level = 2; level <= std::min(tsr_x86_level(), 4); ++level)
    jobs.push_back(Job{&spec_, {"x86", "v" + std::to_string(level)}, "", find_target("x86")});
  PassOptions options;
  options.archive = archive;
  const std::vector<VerdictRow> rows = run_passes(jobs, options);
  ASSERT_EQ(rows.size(), jobs.size());
  for (const VerdictRow& row : rows) {
    EXPECT_EQ(row.report.verdict, Verdict::pass) << row.target.str() << ": " << row.report.reason;
    EXPECT_EQ(row.route, "libtesserart memfd+dlopen") << row.target.str();
  }
  tsr_archive_close(archive);
}

// The compiler's device check is the stub's detector: a tier is present
// exactly when the stub's own level reaches it, and v2 names cx16 and lahf.
TEST_F(OracleLaunchPath, DeviceCheckIsTheStubsDetection) {
  for (int level = 2; level <= 4; ++level) {
    const std::string arch = "v" + std::to_string(level);
    const DeviceInfo d = target_->device(arch);
    EXPECT_EQ(d.present, tsr_x86_level() >= level) << arch << ": " << d.description;
  }
  EXPECT_NE(target_->device("v2").description.find("cx16"), std::string::npos);
  EXPECT_NE(target_->device("v2").description.find("lahf"), std::string::npos);
}

}  // namespace
}  // namespace tsr
