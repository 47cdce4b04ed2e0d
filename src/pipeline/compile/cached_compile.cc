#include "compile/cached_compile.h"

#include "compile/compile.h"
#include "identity/identity.h"
#include "support/sha256.h"

namespace tsr {

std::string compile_cache_key(const std::string& identity, const TargetName& target, const ToolchainInfo& toolchain,
                              const std::string& source) {
  return artifact_cache_key(identity, target, toolchain, sha256_hex(source));
}

Expected<Artifact> compile_through_cache(const KernelSpec& spec, const Target& target_impl, const TargetName& target,
                                         const std::string& source, CompileCache* cache) {
  const ToolchainInfo tc = target_impl.toolchain();
  if (!tc.found) return toolchain_unavailable(target, tc);
  const std::string key = compile_cache_key(kernel_identity(spec), target, tc, source);
  if (cache)
    if (std::optional<Artifact> hit = cache->find_artifact(key)) return std::move(*hit);
  Expected<Artifact> art = compile_emitted(target_impl, spec, target, tc, source);
  if (art && cache) cache->store_artifact(key, *art);
  return art;
}

}  // namespace tsr
