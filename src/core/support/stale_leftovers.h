// Cleanup after a run killed with SIGKILL, which no destructor survives:
// temporary outputs (`.NAME.tmp-PID-XXXXXX` beside an output) and scratch
// directories (`$TMPDIR/tesserac-KIND-PID-XXXXXX`). A later run removes a
// leftover only when all of these hold (docs/cli.md "Leftovers"):
//   - the name is exactly PREFIX + PID + "-" + six mkstemp characters,
//   - it is owned by this user and is a regular file (or a directory, for
//     scratch directories), never a symlink,
//   - process PID is not running on this machine (kill(PID, 0) says ESRCH),
//   - nothing modified it for kStaleAfterSeconds, which guards a directory
//     shared across PID namespaces or hosts, where the PID says nothing.
#pragma once

#include <string>

namespace tsr {

inline constexpr long kStaleAfterSeconds = 10 * 60;

// PREFIX + this process's id + "-XXXXXX": the mkstemp/mkdtemp template
// whose results sweep_stale_leftovers recognises.
std::string leftover_template(const std::string& dir, const std::string& prefix);

// Removes the stale leftovers named PREFIX<pid>-XXXXXX in `dir` (see above).
// Best effort: anything it cannot inspect or remove is left alone.
void sweep_stale_leftovers(const std::string& dir, const std::string& prefix);

}  // namespace tsr
