// What tesserac fixes about its own process before it does anything else.
#pragma once

namespace tsr::cli {

// Occupies closed descriptors 0, 1 and 2 and puts SIGCHLD back to its default.
// Call first thing in main, before anything opens a file or starts a child.
void prepare_process();

}  // namespace tsr::cli
