#include "support/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "support/stale_leftovers.h"

namespace tsr {

namespace {
Status write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return toolchain_error(errno_text(errno));
    done += static_cast<size_t>(n);
  }
  return ok();
}

// Replaces `path` (a regular file or nothing) through a temporary file in
// the same directory, so readers see the old file or the new one, never a part.
Status replace_file_atomically(const std::string& path, std::string_view bytes) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  sweep_stale_leftovers(dir, prefix);
  std::string tmpl = leftover_template(dir, prefix);
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) return toolchain_error("cannot create a temporary file in '" + dir + "': " + errno_text(errno));
  auto fail = [&](const std::string& why) -> Status {
    close(fd);
    unlink(tmpl.c_str());
    return toolchain_error("cannot write '" + path + "': " + why);
  };
  // mkstemp creates 0600; outputs get the usual 0644 less the umask (the
  // tool is single-threaded, so reading the umask by setting it is safe).
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0644 & ~mask) != 0) return fail(errno_text(errno));
  if (Status w = write_all(fd, bytes); !w.ok()) return fail(w.error().message());
  if (fsync(fd) != 0) return fail(errno_text(errno));
  if (close(fd) != 0) {
    const std::string why = errno_text(errno);
    unlink(tmpl.c_str());
    return toolchain_error("cannot write '" + path + "': " + why);
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text(errno);
    unlink(tmpl.c_str());
    return toolchain_error("cannot rename output into '" + path + "': " + why);
  }
  return ok();
}

Error too_big(std::string_view what, uint64_t size, uint64_t max_bytes) {
  return invalid_input(std::string(what) + " is " + std::to_string(size) + " bytes, over the limit of " +
                       std::to_string(max_bytes) + " bytes");
}
}  // namespace

std::string system_error_text(const std::error_code& ec) {
  std::string text = ec.message();
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string errno_text(int err) { return system_error_text(std::error_code(err, std::generic_category())); }

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  Expected<OutputDestination> dest = resolve_output(path);
  if (!dest) return toolchain_error("cannot write '" + path + "': " + dest.error().message());
  if (dest->kind == OutputDestination::Kind::file) return replace_file_atomically(dest->path, bytes);
  // Devices and descriptors are written in place: replacing /dev/null (as
  // root) or the file behind /dev/stdout would break them for everyone else.
  int fd = dest->fd;
  if (dest->kind == OutputDestination::Kind::device) {
    fd = open(dest->path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return toolchain_error("cannot open '" + path + "': " + errno_text(errno));
  }
  Status w = write_all(fd, bytes);
  if (dest->kind == OutputDestination::Kind::device && close(fd) != 0 && w.ok())
    w = toolchain_error(errno_text(errno));
  if (!w.ok()) return toolchain_error("cannot write '" + path + "': " + w.error().message());
  return ok();
}

Status write_file(const std::string& path, std::string_view bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return toolchain_error("cannot create '" + path + "': " + errno_text(errno));
  Status w = write_all(fd, bytes);
  if (close(fd) != 0 && w.ok()) w = toolchain_error(errno_text(errno));
  if (!w.ok()) return toolchain_error("cannot write '" + path + "': " + w.error().message());
  return ok();
}

const char* non_regular_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

Status check_regular_file(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return invalid_input("cannot read: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return invalid_input(std::string("not a regular file (") + non_regular_kind(st.st_mode) + ")");
  return ok();
}

namespace {
// The whole of a regular file into `out` (a std::string or a byte vector).
template <typename Buffer>
Status read_whole_file(const std::string& path, uint64_t max_bytes, std::string_view what, Buffer& out) {
  // stat first, so a device is never even opened (opening some has effects).
  if (Status regular = check_regular_file(path); !regular.ok()) return regular;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return invalid_input("cannot read: " + errno_text(errno));
  struct FdCloser { int fd; ~FdCloser() { close(fd); } } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) return invalid_input("cannot read: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return invalid_input(std::string("not a regular file (") + non_regular_kind(st.st_mode) + ")");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return too_big(what, static_cast<uint64_t>(st.st_size), max_bytes);
  // Read at most one byte past the limit: the file may grow while we read.
  out.resize(std::min<uint64_t>(static_cast<uint64_t>(st.st_size), max_bytes) + 1);
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_bytes)
        return invalid_input(std::string(what) + " grew past the limit of " + std::to_string(max_bytes) +
                             " bytes while being read");
      out.resize(std::min<uint64_t>(max_bytes + 1, out.size() * 2));
    }
    const ssize_t n = read(fd, reinterpret_cast<char*>(out.data()) + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return invalid_input("cannot read: " + errno_text(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return ok();
}
}  // namespace

Expected<std::string> read_input_file(const std::string& path, uint64_t max_bytes, std::string_view what) {
  std::string text;
  if (Status read = read_whole_file(path, max_bytes, what, text); !read.ok()) return read.take_error();
  return text;
}

Expected<std::vector<uint8_t>> read_file_bytes(const std::string& path, uint64_t max_bytes) {
  std::vector<uint8_t> bytes;
  Status read = read_whole_file(path, max_bytes, "file", bytes);
  if (!read.ok()) return invalid_input(path + ": " + read.error().message());
  return bytes;
}

Expected<ScratchDir> ScratchDir::create(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = tmp && *tmp ? tmp : "/tmp";
  // Sweep once per process and directory: compile steps make one per job.
  static std::mutex swept_mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(swept_mutex);
    if (swept.insert(base + "\n" + prefix).second) sweep_stale_leftovers(base, prefix + "-");
  }
  std::string pattern = leftover_template(base, prefix + "-");
  if (!mkdtemp(pattern.data()))
    return toolchain_error("cannot create a temporary directory under " + base + ": " + errno_text(errno));
  return ScratchDir(pattern);
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace tsr
