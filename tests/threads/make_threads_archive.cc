// Writes the thread-safety scenarios' archive (stub_threads_archive.h) for
// the ThreadSanitizer driver, which links only the stub and so cannot build
// archives itself.
#include <cstdio>

#include "archive/archive_writer.h"
#include "stub_threads_archive.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.tfat\n", argv[0]);
    return 2;
  }
  tsr::Status s = tsr::write_archive(tsr::testing::threads_contents(), argv[1]);
  if (!s) {
    std::fprintf(stderr, "error: %s\n", s.error().message().c_str());
    return 1;
  }
  return 0;
}
