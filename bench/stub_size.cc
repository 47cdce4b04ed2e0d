// Size of the stripped runtime stub, as configured (budget: <= 96 KiB, docs/decisions.md "Stub size budget")
// and x86-only, every vendor backend built out (budget: <= 48 KiB), and their dynamic dependencies (target:
// libc and libdl only; glibc's dynamic loader counts as libc: since glibc 2.34 it holds __tls_get_addr,
// which the stub's thread-local messages call).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/subprocess.h"

namespace {

// Prints one library's line and its dependencies; true when within `budget_kib` and on libc/libdl only.
bool measure(const char* label, const char* stem, const std::string& lib, uintmax_t budget_kib) {
  namespace fs = std::filesystem;
  const std::string stripped = (fs::temp_directory_path() / (std::string(stem) + ".stripped.so")).string();
  tsr::ProcessResult r = tsr::run_process({"strip", "--strip-all", "-o", stripped, lib});
  if (r.exit_code != 0) {
    std::printf("strip failed: %s\n", r.output.c_str());
    return false;
  }
  const uintmax_t size = fs::file_size(stripped);
  const uintmax_t unstripped = fs::file_size(lib);
  const bool small = size <= budget_kib * 1024;
  std::printf("%s: %ju bytes unstripped, %ju bytes stripped (%.1f KiB; budget %ju KiB: %s)\n", label, unstripped,
              size, size / 1024.0, budget_kib, small ? "ok" : "OVER");
  tsr::ProcessResult deps = tsr::run_process({"readelf", "-d", stripped});
  std::printf("  dynamic dependencies:");
  size_t pos = 0;
  bool only_libc_libdl = true;
  while ((pos = deps.output.find("Shared library: [", pos)) != std::string::npos) {
    pos += 17;
    std::string name = deps.output.substr(pos, deps.output.find(']', pos) - pos);
    std::printf(" %s", name.c_str());
    only_libc_libdl &= name.rfind("libc.so", 0) == 0 || name.rfind("libdl.so", 0) == 0 ||
                       name.rfind("ld-linux", 0) == 0;
  }
  std::printf("\n  libc/libdl only: %s\n", only_libc_libdl ? "yes" : "NO");
  fs::remove(stripped);
  return small && only_libc_libdl;
}

}  // namespace

int main() {
  const bool full = measure("libtesserart.so", "libtesserart", TSR_STUB_SO, 96);
  const bool x86only = measure("libtesserart.so x86-only", "libtesserart_x86only", TSR_STUB_X86ONLY_SO, 48);
  return full && x86only ? 0 : 1;
}
