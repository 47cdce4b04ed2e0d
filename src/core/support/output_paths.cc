#include "support/output_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "support/decimal.h"
#include "support/file_io.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

// Linux's own limit on symlinks followed in one lookup.
constexpr int kMaxSymlinkHops = 40;

// The descriptor a path names by convention, as bash and the kernel read
// them: writing there must reach the open file (a pipe, a terminal, a file
// opened with >>), not replace whatever the name resolves to.
std::optional<int> descriptor_of(const std::string& path) {
  if (path == "/dev/stdin") return 0;
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  const std::string own_fds = "/proc/" + std::to_string(getpid()) + "/fd/";
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"), own_fds}) {
    if (path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = path.substr(prefix.size());
    const std::optional<uint64_t> fd = parse_decimal_u64(digits);
    if (!fd || digits.size() > 9) return std::nullopt;
    return static_cast<int>(*fd);
  }
  return std::nullopt;
}

// Same file: device and inode when it exists, else the normalized absolute path.
struct FileIdentity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string normalized;

  bool operator==(const FileIdentity& o) const {
    if (exists && o.exists) return dev == o.dev && ino == o.ino;
    return normalized == o.normalized;
  }
};

FileIdentity identity_of(const std::string& path) {
  FileIdentity id;
  std::error_code ec;
  fs::path normal = fs::weakly_canonical(fs::absolute(path, ec), ec);
  id.normalized = ec ? fs::absolute(path, ec).lexically_normal().string() : normal.string();
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
  }
  return id;
}

Error usage(std::string message) { return Error(ErrorKind::usage, std::move(message)); }

std::string named(const CommandPath& p) { return p.option + " '" + p.path + "'"; }

}  // namespace

Expected<OutputDestination> resolve_output(const std::string& path) {
  std::string current = path;
  for (int hops = 0;; ++hops) {
    if (std::optional<int> fd = descriptor_of(current)) {
      if (fcntl(*fd, F_GETFD) < 0) return toolchain_error("descriptor " + std::to_string(*fd) + " is not open");
      return OutputDestination{OutputDestination::Kind::descriptor, current, *fd};
    }
    struct stat st;
    if (lstat(current.c_str(), &st) != 0) {
      // A new file (also the target of a dangling link, as a shell's > does).
      if (errno == ENOENT) return OutputDestination{OutputDestination::Kind::file, current, -1};
      return toolchain_error(errno_text(errno));
    }
    if (S_ISREG(st.st_mode)) return OutputDestination{OutputDestination::Kind::file, current, -1};
    if (S_ISCHR(st.st_mode)) return OutputDestination{OutputDestination::Kind::device, current, -1};
    if (!S_ISLNK(st.st_mode))
      return toolchain_error(std::string("it is ") + non_regular_kind(st.st_mode) +
                             " (an output must be a regular file, a character device or /dev/stdout)");
    if (hops == kMaxSymlinkHops) return toolchain_error(errno_text(ELOOP));
    std::error_code ec;
    const fs::path target = fs::read_symlink(current, ec);
    if (ec) return toolchain_error(system_error_text(ec));
    current = (target.is_absolute() ? target : fs::path(current).parent_path() / target).lexically_normal().string();
  }
}

Status check_output_paths(const std::vector<CommandPath>& inputs, const std::vector<CommandPath>& outputs) {
  std::vector<std::pair<const CommandPath*, FileIdentity>> files;   // outputs that are files
  std::vector<FileIdentity> input_ids;
  for (const CommandPath& in : inputs) input_ids.push_back(identity_of(in.path));
  for (const CommandPath& out : outputs) {
    Expected<OutputDestination> dest = resolve_output(out.path);
    if (!dest) return usage("cannot write " + named(out) + ": " + dest.error().message());
    if (dest->kind != OutputDestination::Kind::file) continue;
    const FileIdentity id = identity_of(dest->path);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (id == input_ids[i])
        return usage(named(out) + " is the same file as the input " + named(inputs[i]) +
                     " (an output must not overwrite an input)");
    for (const auto& [other, other_id] : files)
      if (id == other_id)
        return usage(named(out) + " is the same file as " + named(*other) + " (each output needs a file of its own)");
    files.emplace_back(&out, id);
  }
  return ok();
}

}  // namespace tsr
