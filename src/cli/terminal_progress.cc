#include "cli/terminal_progress.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace tsr::cli {

namespace {

class TerminalProgress : public BuildProgress {
 public:
  TerminalProgress(bool quiet, bool verbose)
      : quiet_(quiet), verbose_(verbose), tty_(!verbose && isatty(STDERR_FILENO) == 1) {}

  void step(size_t done, size_t total, const std::string& phase, const std::string& target,
            const std::string& kernel) override {
    if (quiet_) return;
    const std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + phase + " " + target +
                             " " + kernel;
    if (tty_) {
      // \r and erase-to-end-of-line: the line is rewritten in place.
      std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
      dirty_ = true;
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }

  void detail(const std::string& line) override {
    if (verbose_) std::fprintf(stderr, "tesserac: %s\n", line.c_str());
  }

  void finish() override {
    if (dirty_) std::fprintf(stderr, "\r\x1b[K");
    dirty_ = false;
    std::fflush(stderr);
  }

 private:
  bool quiet_, verbose_, tty_;
  bool dirty_ = false;
};

}  // namespace

std::unique_ptr<BuildProgress> make_terminal_progress(bool quiet, bool verbose) {
  return std::make_unique<TerminalProgress>(quiet, verbose);
}

}  // namespace tsr::cli
