// Whole-file I/O for the compiler: outputs appear whole or not at all
// (temporary file in the destination directory, fsync, rename), inputs are
// read in one piece, and compile steps get private scratch directories.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace tsr {

Status write_file_atomic(const std::string& path, std::string_view bytes);
inline Status write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

// Plain write, for files inside a ScratchDir that nobody else can see.
Status write_file(const std::string& path, std::string_view bytes);

Expected<std::vector<uint8_t>> read_file_bytes(const std::string& path);

// A fresh private directory under $TMPDIR (default /tmp), removed with
// everything in it when the object goes away.
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
