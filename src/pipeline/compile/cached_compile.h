// Compiling through the compile cache (docs/cache.md): the one key of an
// artifact, and compile-or-hit for a caller that compiles one artifact at a
// time (the arbiter's candidates). qualify looks up with the same key, then
// compiles the misses on several threads and stores them in job order.
#pragma once

#include <string>

#include "cache/compile_cache.h"
#include "spec/kernel_spec.h"
#include "support/error.h"
#include "target/target.h"

namespace tsr {

// The key of `source` compiled for `target` by `toolchain`, for the kernel of
// identity `identity` (kernel_identity).
std::string compile_cache_key(const std::string& identity, const TargetName& target, const ToolchainInfo& toolchain,
                              const std::string& source);

// `source` (emitted for `target`) compiled by `target_impl`'s toolchain: the
// cached artifact when there is one, else compiled and stored. No cache: compiled.
Expected<Artifact> compile_through_cache(const KernelSpec& spec, const Target& target_impl, const TargetName& target,
                                         const std::string& source, CompileCache* cache);

}  // namespace tsr
