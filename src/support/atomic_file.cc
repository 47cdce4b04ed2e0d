#include "support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tsr {

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string tmpl = dir + "/." + target.filename().string() + ".tmp-XXXXXX";
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) return toolchain_error("cannot create a temporary file in '" + dir + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      close(fd);
      unlink(tmpl.c_str());
      return toolchain_error("cannot write '" + path + "': " + why);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; outputs get the usual 0644 (less the umask).
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0644 & ~mask);
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(tmpl.c_str());
    return toolchain_error("cannot write '" + path + "': " + std::strerror(errno));
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmpl.c_str());
    return toolchain_error("cannot rename output into '" + path + "': " + why);
  }
  return ok();
}

Expected<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_input(path + ": error: cannot open file: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tsr
