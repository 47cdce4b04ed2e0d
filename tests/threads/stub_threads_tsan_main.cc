// The thread-safety scenarios (stub_threads.h) in a ThreadSanitizer build of
// the stub: every scenario on the archive as a file and in memory. A race
// report ends the process with TSAN_OPTIONS' exit code (ctest sets
// halt_on_error=1:exitcode=66); a wrong result exits 1.
#include <cstdio>

#include "stub_threads.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s ARCHIVE.tfat (written by stub_threads_make_archive)\n", argv[0]);
    return 2;
  }
  int failed = 0;
  for (const tsr::threads::ArchiveSource& source : tsr::threads::sources_for(argv[1])) {
    for (const tsr::threads::Scenario& scenario : tsr::threads::all_scenarios()) {
      std::string why = scenario.run(source);
      std::printf("%s %s (%s archive)%s%s\n", why.empty() ? "PASS" : "FAIL", scenario.name, source.name.c_str(),
                  why.empty() ? "" : ": ", why.c_str());
      failed += !why.empty();
    }
  }
  return failed ? 1 : 0;
}
