// What the rest of the compiler asks a target instead of naming its kind
// (issue 8 item 8, docs/adding-a-target.md): the registry's kinds, and the
// file suffix of each kind of artifact a target produces.
#include <gtest/gtest.h>

#include <set>

#include "emulator/emulator.h"
#include "registry/registry.h"
#include "spec/target_catalogue.h"

namespace tsr {
namespace {

Artifact artifact_of_kind(const std::string& kind) {
  Artifact a;
  a.kind = kind;
  return a;
}

TEST(TargetRegistry, KindsAreRegisteredOnceEach) {
  std::vector<std::string> kinds;
  for (const auto& t : all_targets()) kinds.push_back(t->kind());
  EXPECT_EQ(kinds, (std::vector<std::string>{"x86", "cuda", "hip", "xdna"}));
  for (const std::string& kind : kinds) EXPECT_EQ(find_target(kind)->kind(), kind);
  EXPECT_EQ(find_target("rocm"), nullptr);
}

// The spec layer's catalogue (core, data only) and the registered targets
// agree: the same kinds in the same order, and each target's archs() is its
// row, so a name -t accepts is one a target builds, and the reverse.
TEST(TargetRegistry, ArchsAreTheCatalogue) {
  const std::vector<TargetKind>& catalogue = target_catalogue();
  ASSERT_EQ(catalogue.size(), all_targets().size());
  for (size_t i = 0; i < catalogue.size(); ++i) {
    const Target& target = *all_targets()[i];
    EXPECT_EQ(target.kind(), catalogue[i].kind);
    EXPECT_EQ(target.archs(), catalogue[i].archs) << target.kind();
    if (std::unique_ptr<Target> twin = target.make_emulated()) {
      EXPECT_EQ(twin->kind(), catalogue[i].kind);
      EXPECT_EQ(twin->archs(), catalogue[i].archs) << target.kind() << " (emulated)";
    }
  }
}

// `tesserac targets` prints these: a target must not let a found toolchain
// suggest it does more than it does (xdna packages, it generates no AIE code).
TEST(TargetRegistry, EveryTargetSaysWhatItDoesAndDoesNot) {
  for (const auto& t : all_targets()) {
    SCOPED_TRACE(t->kind());
    const TargetScope scope = t->scope();
    EXPECT_FALSE(scope.does.empty());
    EXPECT_FALSE(scope.does_not.empty());
    EXPECT_EQ(scope.does.find('\n'), std::string::npos);
    EXPECT_EQ(scope.does_not.find('\n'), std::string::npos);
  }
  const TargetScope xdna = find_target("xdna")->scope();
  EXPECT_EQ(xdna.does_not.rfind("generate or compile AIE code", 0), 0u) << xdna.does_not;
  EXPECT_NE(xdna.does.find("into an xclbin"), std::string::npos) << xdna.does;
}

TEST(TargetRegistry, ArtifactFileExtensionIsTheTargets) {
  EXPECT_EQ(find_target("x86")->artifact_file_extension(artifact_of_kind("shared_object")), ".so");
  EXPECT_EQ(find_target("cuda")->artifact_file_extension(artifact_of_kind("ptx")), ".ptx");
  EXPECT_EQ(find_target("cuda")->artifact_file_extension(artifact_of_kind("cubin")), ".cubin");
  EXPECT_EQ(find_target("hip")->artifact_file_extension(artifact_of_kind("code_object")), ".hsaco");
  EXPECT_EQ(find_target("xdna")->artifact_file_extension(artifact_of_kind("xclbin")), ".xclbin");
  // The CPU emulator of the CUDA source compiles it to a host shared object.
  EXPECT_EQ(cuda::emu::make_emulated_cuda_target()->artifact_file_extension(
                artifact_of_kind("emulated_shared_object")),
            ".so");
}

// Only the emulator's target (never registered) reports an emulated device,
// so no registered target's verdict can be PASS_EMULATED and the emulator's
// can never be a hardware PASS (oracle.cc turns its passes into PASS_EMULATED).
TEST(TargetRegistry, NoRegisteredTargetIsEmulatedAndTheEmulatorIs) {
  for (const auto& t : all_targets())
    for (const std::string& arch : t->archs()) EXPECT_FALSE(t->device(arch).emulated) << t->kind() << ":" << arch;
  const std::unique_ptr<Target> emulator = cuda::emu::make_emulated_cuda_target();
  for (const std::string& arch : emulator->archs()) {
    const DeviceInfo d = emulator->device(arch);
    EXPECT_TRUE(d.present);
    EXPECT_TRUE(d.emulated);
    EXPECT_EQ(d.description, "CPU emulator (emulated on the CPU: semantics, not hardware)");
  }
}

}  // namespace
}  // namespace tsr
