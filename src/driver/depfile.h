// Makefile-syntax dependency files (as `cc -MD` writes them), so Make and
// Ninja rebuild an archive when a spec changes or a spec directory gains or
// loses a file.
#pragma once

#include <string>
#include <vector>

namespace tsr {

// "OUTPUT: IN1 IN2 ...\n", with spaces, '#', '$' and '\' escaped; inputs are
// the paths as given plus every spec file found under given directories.
std::string render_depfile(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace tsr
