#include "targets/x86/x86_target.h"

namespace tsr {
// Placeholder until the x86 target lands.
std::unique_ptr<Target> make_x86_target() { return nullptr; }
}  // namespace tsr
