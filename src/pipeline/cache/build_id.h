// The identity of the running program's code, for cache keys.
#pragma once

#include <string>

namespace tsr {

// The GNU build ID of the main executable (the linker's hash over its
// contents, from the NT_GNU_BUILD_ID note) in hex; without one, the
// SHA-256 of /proc/self/exe; "unknown" when neither can be read.
std::string program_build_id();

}  // namespace tsr
