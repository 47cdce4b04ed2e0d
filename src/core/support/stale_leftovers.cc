#include "support/stale_leftovers.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <ctime>
#include <filesystem>

#include "support/decimal.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

constexpr size_t kRandomChars = 6;   // what mkstemp/mkdtemp put in place of XXXXXX

// The PID in NAME = PREFIX + digits + "-" + six [A-Za-z0-9], or -1.
long leftover_pid(const std::string& name, const std::string& prefix) {
  if (name.size() < prefix.size() + 2 + kRandomChars || name.compare(0, prefix.size(), prefix) != 0) return -1;
  const size_t dash = name.size() - kRandomChars - 1;
  if (name[dash] != '-') return -1;
  for (size_t i = dash + 1; i < name.size(); ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[i]))) return -1;
  const std::string digits = name.substr(prefix.size(), dash - prefix.size());
  const std::optional<uint64_t> pid = parse_decimal_u64(digits);
  if (!pid || digits.size() > 9) return -1;
  return static_cast<long>(*pid);
}

bool process_is_gone(long pid) {
  if (pid <= 0 || pid == getpid()) return false;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string leftover_template(const std::string& dir, const std::string& prefix) {
  return dir + "/" + prefix + std::to_string(getpid()) + "-" + std::string(kRandomChars, 'X');
}

void sweep_stale_leftovers(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  fs::directory_iterator it(dir.empty() ? "." : dir, ec);
  const time_t now = std::time(nullptr);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long pid = leftover_pid(name, prefix);
    if (pid < 0) continue;
    struct stat st;
    if (lstat(it->path().c_str(), &st) != 0 || st.st_uid != geteuid()) continue;
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    if (now - st.st_mtime < kStaleAfterSeconds || !process_is_gone(pid)) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);   // does not follow symlinks inside
  }
}

}  // namespace tsr
