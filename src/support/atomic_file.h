// Output files appear whole or not at all: write a temporary file in the
// destination directory, fsync it, then rename it over the target.
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
Expected<std::string> read_whole_file(const std::string& path);

}  // namespace tsr
