#include "support/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tsr {

namespace {
Status write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return toolchain_error(std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return ok();
}
}  // namespace

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string tmpl = dir + "/." + target.filename().string() + ".tmp-XXXXXX";
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) return toolchain_error("cannot create a temporary file in '" + dir + "': " + std::strerror(errno));
  auto fail = [&](const std::string& why) -> Status {
    close(fd);
    unlink(tmpl.c_str());
    return toolchain_error("cannot write '" + path + "': " + why);
  };
  // mkstemp creates 0600; outputs get the usual 0644 less the umask (the
  // tool is single-threaded, so reading the umask by setting it is safe).
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0644 & ~mask) != 0) return fail(std::strerror(errno));
  if (Status w = write_all(fd, bytes); !w.ok()) return fail(w.error().message());
  if (fsync(fd) != 0) return fail(std::strerror(errno));
  if (close(fd) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmpl.c_str());
    return toolchain_error("cannot write '" + path + "': " + why);
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmpl.c_str());
    return toolchain_error("cannot rename output into '" + path + "': " + why);
  }
  return ok();
}

Status write_file(const std::string& path, std::string_view bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return toolchain_error("cannot create '" + path + "': " + std::strerror(errno));
  Status w = write_all(fd, bytes);
  if (close(fd) != 0 && w.ok()) w = toolchain_error(std::strerror(errno));
  if (!w.ok()) return toolchain_error("cannot write '" + path + "': " + w.error().message());
  return ok();
}

Expected<std::vector<uint8_t>> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_input(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return invalid_input(path + ": read error");
  return bytes;
}

Expected<ScratchDir> ScratchDir::create(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = tmp && *tmp ? tmp : "/tmp";
  std::string pattern = base + "/" + prefix + "-XXXXXX";
  if (!mkdtemp(pattern.data()))
    return toolchain_error("cannot create a temporary directory under " + base + ": " + std::strerror(errno));
  return ScratchDir(pattern);
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace tsr
