#pragma once

#include <memory>
#include <string>
#include <vector>

#include "targets/target.h"

namespace tsr {

// All targets this build knows, in a fixed order. Registration is explicit:
// a new target adds one line to registry.cc (no static self-registration).
const std::vector<std::unique_ptr<Target>>& all_targets();
const Target* find_target(const std::string& kind);

// Every "kind:arch" name the registry accepts, sorted as registered.
std::vector<TargetName> all_target_names();

// "unknown target 'hip:gfx942' (known: ...)", followed, where the kind is
// registered, by ": " and that target's reason for refusing the arch (which
// toolchain would build it, e.g. gfx942's LLVM >= 17).
std::string unknown_target_message(const std::string& text);

}  // namespace tsr
