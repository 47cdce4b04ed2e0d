// Thread-safety scenarios for libtesserart (docs/runtime.md, "Threads"):
// many threads on one archive and its kernels at once. Each returns "" when
// every result, status, message and lazy-work count is as documented, else
// what differed. The default suite runs them (StubThreads.*), and so does a
// ThreadSanitizer build of the stub (stub_threads_tsan, ctest label tsan),
// which adds that no access races. They use only the stub's own API, so
// the TSan driver links nothing uninstrumented but libc and libstdc++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tsr::threads {

// Where each scenario opens its fresh archive: stub_threads_archive.h's
// contents as a file (blobs read lazily with pread) or in memory.
struct ArchiveSource {
  std::string name;              // "file" or "memory", for messages
  std::string path;              // set: tsr_archive_open_file
  std::vector<uint8_t> bytes;    // else: tsr_archive_open_memory
};

// The archive file at path opened as a file, and its bytes opened in memory.
std::vector<ArchiveSource> sources_for(const std::string& path);

inline constexpr int kThreads = 8;
inline constexpr int kKernels = 4;   // vadd1..vadd4

// kThreads threads launch one loaded kernel at once, each on its own buffers.
std::string same_kernel_launches(const ArchiveSource& source);
// kThreads threads launch the four kernels of one archive, switching kernels.
std::string different_kernel_launches(const ArchiveSource& source);
// Four threads per kernel race to load it first on a fresh archive: each
// kernel's record check, blob check and blob read happen exactly once.
std::string concurrent_first_loads(const ArchiveSource& source);
// kThreads threads race to the first record check of the four kernels of a
// fresh archive, trial after trial: each kernel is checked once per archive.
std::string racing_kernel_checks(const ArchiveSource& source);
// tsr_archive_verify from several threads while others load and launch.
std::string verify_during_loads(const ArchiveSource& source);
// Each thread's failures leave their own message, untouched by other
// threads' successes and failures on the same archive and kernel.
std::string per_thread_messages(const ArchiveSource& source);

// Every scenario above, by name, for drivers.
struct Scenario {
  const char* name;
  std::string (*run)(const ArchiveSource&);
};
const std::vector<Scenario>& all_scenarios();

}  // namespace tsr::threads
