// Embedding an archive into a program as C source, for
// tsr_archive_open_memory without a file next to the binary.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "support/error.h"

namespace tsr {

// C11 source defining
//   const unsigned char <symbol>[];   (16-byte aligned)
//   const size_t <symbol>_size;
// `symbol` must be a C identifier. The text depends only on the inputs.
Expected<std::string> embed_as_c_source(std::span<const uint8_t> bytes, const std::string& symbol);

}  // namespace tsr
