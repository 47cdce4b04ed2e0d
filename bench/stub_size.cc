// Size of the stripped runtime stub (budget: <= 96 KiB, docs/decisions.md "Stub size budget") and its dynamic
// dependencies (target: libc and libdl only).
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/subprocess.h"

int main() {
  namespace fs = std::filesystem;
  const std::string lib = TSR_STUB_SO;
  const std::string stripped = (fs::temp_directory_path() / "libtesserart.stripped.so").string();
  tsr::ProcessResult r = tsr::run_process({"strip", "--strip-all", "-o", stripped, lib});
  if (r.exit_code != 0) {
    std::printf("strip failed: %s\n", r.output.c_str());
    return 1;
  }
  const auto size = fs::file_size(stripped);
  const auto unstripped = fs::file_size(lib);
  std::printf("libtesserart.so: %ju bytes unstripped, %ju bytes stripped (%.1f KiB; budget 96 KiB: %s)\n",
              uintmax_t(unstripped), uintmax_t(size), size / 1024.0, size <= 96 * 1024 ? "ok" : "OVER");
  tsr::ProcessResult deps = tsr::run_process({"readelf", "-d", stripped});
  std::printf("dynamic dependencies:\n");
  size_t pos = 0;
  bool only_libc_libdl = true;
  while ((pos = deps.output.find("Shared library: [", pos)) != std::string::npos) {
    pos += 17;
    std::string name = deps.output.substr(pos, deps.output.find(']', pos) - pos);
    std::printf("  %s\n", name.c_str());
    only_libc_libdl &= name.rfind("libc.so", 0) == 0 || name.rfind("libdl.so", 0) == 0;
  }
  std::printf("libc/libdl only: %s\n", only_libc_libdl ? "yes" : "NO");
  fs::remove(stripped);
  return size <= 96 * 1024 && only_libc_libdl ? 0 : 1;
}
