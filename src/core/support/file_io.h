// Whole-file I/O for the compiler: outputs appear whole or not at all
// (temporary file in the destination directory, fsync, rename), inputs are
// read in one piece with a size limit and only from regular files, and
// compile steps get private scratch directories. Leftovers of a killed run
// (temporary files, scratch directories) are swept by a later one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "support/error.h"
#include "support/output_paths.h"

namespace tsr {

// The largest archive (or other binary input) read whole (docs/limits.md).
inline constexpr uint64_t kMaxBinaryInputBytes = uint64_t{4} << 30;

// Writes `bytes` to `path` as docs/cli.md "Output files" says: a regular
// file (new or existing, or the target of a symlink) is replaced atomically;
// a character device (/dev/null) or an open descriptor (/dev/stdout,
// /dev/fd/N) is written through; anything else is refused.
Status write_file_atomic(const std::string& path, std::string_view bytes);
inline Status write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// Plain write, for files inside a ScratchDir that nobody else can see.
Status write_file(const std::string& path, std::string_view bytes);

// Reads a whole regular file of at most `max_bytes`. FIFOs, devices, sockets
// and directories are refused without reading (checked with stat, then the
// file is opened O_NONBLOCK and checked again with fstat, so a FIFO swapped
// in between cannot block). The error names the reason only, not the path:
// `what` names the file in it ("spec file is 5 MiB, over the limit ...").
Expected<std::string> read_input_file(const std::string& path, uint64_t max_bytes, std::string_view what);

// Why `path` is not a regular file to read ("not a regular file (a FIFO)"),
// without opening it; for inputs another reader opens (the runtime stub).
Status check_regular_file(const std::string& path);

// What a file of this non-regular type is, for messages: "a FIFO", "a directory", ...
const char* non_regular_kind(mode_t mode);

// The same for binary inputs; the error reads "PATH: reason".
Expected<std::vector<uint8_t>> read_file_bytes(const std::string& path, uint64_t max_bytes = kMaxBinaryInputBytes);

// "no such file or directory": strerror's text with a lower-case start, as
// diagnostics want it.
std::string system_error_text(const std::error_code& ec);
std::string errno_text(int err);

// A fresh private directory under $TMPDIR (default /tmp), removed with
// everything in it when the object goes away. Its name carries the process
// id, so a later run can tell a killed run's leftover from a live one.
class ScratchDir {
 public:
  static Expected<ScratchDir> create(const std::string& prefix);
  ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace tsr
