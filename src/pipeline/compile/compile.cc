#include "compile/compile.h"

#include "identity/identity.h"
#include "support/sha256.h"
#include "registry/registry.h"

namespace tsr {

Expected<std::string> emit_for_target(const Target& t, const KernelSpec& spec, const TargetName& target) {
  std::string why = t.unsupported_reason(spec, target.arch);
  if (!why.empty()) return invalid_input("kernel '" + spec.name + "' cannot be built for " + target.str() + ": " + why);
  return t.emit(spec, target.arch);
}

Expected<Artifact> compile_emitted(const Target& t, const KernelSpec& spec, const TargetName& target,
                                   const ToolchainInfo& toolchain, const std::string& source) {
  Expected<Artifact> artifact = t.compile(spec, target.arch, source);
  if (!artifact) {
    const Error& e = artifact.error();
    return Error(e.kind(), "kernel '" + spec.name + "' (" + spec.location.file + ") for " + target.str() + ": " +
                               e.message());
  }
  artifact->key = artifact_key(spec, target, toolchain, artifact->key);
  return artifact;
}

std::string artifact_key(const KernelSpec& spec, const TargetName& target, const ToolchainInfo& toolchain,
                         const std::string& target_key) {
  return sha256_hex(kernel_identity(spec) + "\n" + target.str() + "\n" + toolchain.version + "\n" + target_key);
}

Error toolchain_unavailable(const TargetName& target, const ToolchainInfo& toolchain) {
  return unavailable("target unavailable: " + target.str() + ": " + toolchain.why_unavailable);
}

Expected<Artifact> compile_for_target(const KernelSpec& spec, const TargetName& target) {
  const Target* t = find_target(target.kind);
  if (!t) return internal_error("internal: no target kind '" + target.kind + "'");
  const ToolchainInfo tc = t->toolchain();
  if (!tc.found) return toolchain_unavailable(target, tc);
  Expected<std::string> source = emit_for_target(*t, spec, target);
  if (!source) return source.take_error();
  Expected<Artifact> artifact = compile_emitted(*t, spec, target, tc, *source);
  if (!artifact) return artifact;
  if (Status checked = t->check_abi(spec, *artifact); !checked) return checked.take_error();
  return artifact;
}

}  // namespace tsr
