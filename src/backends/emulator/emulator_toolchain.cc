// The emulator's clang, discovered once per environment (emulator_toolchain.h).
#include "emulator/emulator_toolchain.h"

#include <cstdlib>
#include <mutex>
#include <string>

#include "x86/x86_internal.h"

namespace tsr::cuda::emu {

ToolchainInfo emulator_clang() {
  static std::mutex mutex;
  static std::string cached_for;
  static ToolchainInfo cached;
  const char* forced = std::getenv("TESSERAC_CLANG");
  const char* path = std::getenv("PATH");
  const std::string key = std::string(forced ? forced : "") + '\0' + (path ? path : "");
  std::lock_guard<std::mutex> lock(mutex);
  if (cached_for != key || cached.path.empty()) {
    cached = x86::find_clang();
    cached_for = key;
  }
  return cached;
}

}  // namespace tsr::cuda::emu
