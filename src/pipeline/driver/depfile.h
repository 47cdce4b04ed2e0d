// Makefile-syntax dependency files (as `cc -MD` writes them), so Make and
// Ninja rebuild an archive when a spec changes or a spec directory gains or
// loses a file.
#pragma once

#include <string>
#include <vector>

#include "support/error.h"

namespace tsr {

// "OUTPUT: IN1 IN2 ...\n"; inputs are the paths as given plus every spec
// file found under given directories. Every path is escaped so that GNU Make
// and Ninja both read it back unchanged (space and '#' and ':' with a
// backslash, '$' as '$$'); a path holding a character neither can read back
// (a newline, a tab, ';', '*', '=', ...) is a usage error naming it, since a
// depfile that Make misreads is worse than none.
Expected<std::string> render_depfile(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace tsr
