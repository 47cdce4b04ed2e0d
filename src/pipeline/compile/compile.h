// Emit + compile one spec for one target, with the kernel identity and the
// toolchain version folded into the artifact key.
#pragma once

#include "spec/kernel_spec.h"
#include "support/error.h"
#include "target/target.h"

namespace tsr {

// `t` is the registered target of target.kind (Job::impl).
Expected<std::string> emit_for_target(const Target& t, const KernelSpec& spec, const TargetName& target);

// The compile half, for a caller that emitted (and looked the source up in
// the compile cache) first: `source` is what emit_for_target returned,
// `toolchain` the target's (found). The ABI check is a pass of its own
// (driver/passes.h), not part of this.
Expected<Artifact> compile_emitted(const Target& t, const KernelSpec& spec, const TargetName& target,
                                   const ToolchainInfo& toolchain, const std::string& source);

// emit, compile and check_abi through the registered target of target.kind,
// no cache: for tools and tests that need one artifact.
Expected<Artifact> compile_for_target(const KernelSpec& spec, const TargetName& target);

// An artifact's key: everything its bytes depend on (the kernel identity,
// the target, the toolchain version and the target's own key of the
// sources). compile_emitted sets it; so must any other compile of a target.
std::string artifact_key(const KernelSpec& spec, const TargetName& target, const ToolchainInfo& toolchain,
                         const std::string& target_key);

// What a build reports for a target without its toolchain here: kind
// unavailable (NOT_RUN), "target unavailable: <target>: <why>".
Error toolchain_unavailable(const TargetName& target, const ToolchainInfo& toolchain);

}  // namespace tsr
