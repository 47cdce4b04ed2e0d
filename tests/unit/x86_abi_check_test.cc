// The x86 ABI check (x86/x86_abi_check.h, Target::check_abi) on shared
// objects clang builds from the emitter's source and from sources mutated
// to break the ABI: a missing or hidden workspace, an entry exported as
// data, a route step naming a symbol the object lacks; and on bytes that are
// not an x86-64 ELF at all. Each must be a clear internal error naming what
// is missing, never a crash; and run_passes must turn one into a failed
// compile, so nothing the ABI disagrees with reaches the oracle.
#include <gtest/gtest.h>

#include "driver/passes.h"
#include "target/forwarding_target.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/x86_fixture.h"

namespace tsr {
namespace {

using namespace spec_builders;

class X86AbiCheck : public testing::X86Fixture {
 protected:
  KernelSpec spec_ = elementwise("abi_relu", DType::f32, {Op::relu}, rt("n"));

  std::string emitted() const {
    Expected<std::string> source = target_->emit(spec_, "v2");
    EXPECT_TRUE(source.ok());
    return source.ok() ? *source : std::string();
  }
  // `source` with its first `from` replaced by `to` (which must be there).
  static std::string replaced(std::string source, const std::string& from, const std::string& to) {
    const size_t at = source.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) source.replace(at, from.size(), to);
    return source;
  }
  Expected<Artifact> compiled(const std::string& source) const { return target_->compile(spec_, "v2", source); }
  std::string abi_error(const Artifact& artifact) const {
    Status s = target_->check_abi(spec_, artifact);
    return s.ok() ? std::string("(accepted)") : s.error().message();
  }
};

TEST_F(X86AbiCheck, TheEmittedObjectPasses) {
  Expected<Artifact> artifact = compiled(emitted());
  ASSERT_TRUE(artifact.ok()) << artifact.error().message();
  EXPECT_TRUE(target_->check_abi(spec_, *artifact).ok()) << abi_error(*artifact);
}

TEST_F(X86AbiCheck, AMissingWorkspaceIsNamed) {
  // The workspace function exported under another name: the entry's _workspace is gone.
  Expected<Artifact> artifact =
      compiled(replaced(emitted(), "__asm__(\"abi_relu_tsr_entry_workspace\")", "__asm__(\"abi_relu_other\")"));
  ASSERT_TRUE(artifact.ok()) << artifact.error().message();
  const std::string error = abi_error(*artifact);
  EXPECT_NE(error.find("ABI check failed for kernel 'abi_relu' (x86:v2)"), std::string::npos) << error;
  EXPECT_NE(error.find("does not export function 'abi_relu_tsr_entry_workspace'"), std::string::npos) << error;
  EXPECT_NE(error.find("abi_relu_other"), std::string::npos) << "the error lists what is exported: " << error;
  EXPECT_EQ(target_->check_abi(spec_, *artifact).error().kind(), ErrorKind::internal);
}

TEST_F(X86AbiCheck, AHiddenEntryIsNotExported) {
  Expected<Artifact> artifact =
      compiled(replaced(emitted(), "#define TSR_EXPORT __attribute__((visibility(\"default\")))",
                        "#define TSR_EXPORT __attribute__((visibility(\"hidden\")))"));
  ASSERT_TRUE(artifact.ok()) << artifact.error().message();
  EXPECT_NE(abi_error(*artifact).find("does not export function 'abi_relu_tsr_entry'"), std::string::npos)
      << abi_error(*artifact);
}

TEST_F(X86AbiCheck, ARouteStepMustBeAnExportedFunction) {
  // A data object under an entry's name: dlsym would find it; calling it would crash.
  Expected<Artifact> artifact = compiled(emitted() +
                                         "\nTSR_EXPORT const int abi_relu_tsr_entry_fast = 1;\n"
                                         "TSR_EXPORT const int abi_relu_tsr_entry_fast_workspace = 1;\n");
  ASSERT_TRUE(artifact.ok()) << artifact.error().message();
  EXPECT_TRUE(target_->check_abi(spec_, *artifact).ok()) << "no route names it yet: " << abi_error(*artifact);
  Artifact routed = *artifact;
  routed.metadata["route.dim"] = "n";
  routed.metadata["route.bounds"] = "64";
  routed.metadata["route.0"] = "delegate:cblas_sgemm entry:abi_relu_tsr_entry";
  routed.metadata["route.1"] = "entry:abi_relu_tsr_entry_fast";
  EXPECT_NE(abi_error(routed).find("does not export function 'abi_relu_tsr_entry_fast'"), std::string::npos)
      << abi_error(routed);
  routed.metadata["route.1"] = "entry:abi_relu_tsr_entry_gone";
  EXPECT_NE(abi_error(routed).find("'abi_relu_tsr_entry_gone'"), std::string::npos) << abi_error(routed);
}

TEST_F(X86AbiCheck, BytesThatAreNotAnX86ObjectAreAnErrorNotACrash) {
  Expected<Artifact> artifact = compiled(emitted());
  ASSERT_TRUE(artifact.ok()) << artifact.error().message();
  const std::vector<uint8_t> good = artifact->bytes;
  for (size_t keep : {size_t{0}, size_t{3}, size_t{63}, size_t{64}, good.size() / 2}) {
    Artifact cut = *artifact;
    cut.bytes.assign(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(keep));
    EXPECT_NE(abi_error(cut).find("internal error: malformed x86 artifact"), std::string::npos)
        << keep << " bytes: " << abi_error(cut);
  }
  Artifact other_machine = *artifact;
  other_machine.bytes[18] = 183;   // e_machine EM_AARCH64
  EXPECT_NE(abi_error(other_machine).find("e_machine is not EM_X86_64"), std::string::npos) << abi_error(other_machine);
  Artifact wrong_kind = *artifact;
  wrong_kind.kind = "cubin";
  EXPECT_NE(abi_error(wrong_kind).find("is a shared_object, not 'cubin'"), std::string::npos) << abi_error(wrong_kind);
}

// x86 with a compile step that drops the workspace export, as a miscompiling
// emitter would: the build's passes must refuse the artifact.
class DropsWorkspace final : public ForwardingTarget {
 public:
  using ForwardingTarget::ForwardingTarget;
  Expected<Artifact> compile(const KernelSpec& spec, const std::string& arch,
                             const std::string& source) const override {
    std::string broken = source;
    const std::string from = "__asm__(\"" + spec.name + "_tsr_entry_workspace\")";
    broken.replace(broken.find(from), from.size(), "__asm__(\"" + spec.name + "_renamed\")");
    return inner_.compile(spec, arch, broken);
  }
};

TEST_F(X86AbiCheck, ThePassesFailTheJobBeforeTheOracle) {
  DropsWorkspace broken(*target_);
  PassOptions options;
  const std::vector<VerdictRow> rows = run_passes({Job{&spec_, {"x86", "v2"}, "", &broken}}, options);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].compile_failed);
  EXPECT_FALSE(rows[0].input_error);
  EXPECT_EQ(rows[0].report.verdict, Verdict::not_run);
  EXPECT_NE(rows[0].error.find("does not export function 'abi_relu_tsr_entry_workspace'"), std::string::npos)
      << rows[0].error;
  EXPECT_TRUE(rows[0].route.empty()) << "nothing was launched: " << rows[0].route;
  // The same job with the real target passes the oracle.
  const std::vector<VerdictRow> good = run_passes({Job{&spec_, {"x86", "v2"}, "", target_}}, options);
  EXPECT_EQ(good[0].report.verdict, Verdict::pass) << good[0].report.reason;
}

}  // namespace
}  // namespace tsr
