// Standard output that remembers its first write error, so a closed stdout,
// a full disk or a reader that went away (EPIPE with SIGPIPE ignored) is
// reported and fails the command, like coreutils' close_stdout, instead of
// exiting 0 after the output went nowhere.
#pragma once

namespace tsr::cli {

// Sends std::cout through the checked buffer. Call once, early in main.
void check_standard_output();

// Flushes standard output. After a failed write it prints
// "tesserac: error: cannot write standard output: <reason>" and returns 3,
// or `exit_code` when that already reports a failure.
int finish_standard_output(int exit_code);

}  // namespace tsr::cli
