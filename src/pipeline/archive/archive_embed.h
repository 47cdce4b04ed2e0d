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

// GNU assembler source defining the same two symbols (same sizes, same
// alignment, both in .rodata) with the archive's bytes taken by `.incbin`
// from `bin_path`, so an object costs one assembler run over the bytes
// instead of five bytes of C per archive byte. `bin_path` may not contain a
// double quote, backslash or newline. The text depends only on the inputs
// (the object records no path: its FILE symbol is `<symbol>.tfat`).
Expected<std::string> embed_as_assembly(uint64_t size, const std::string& symbol, const std::string& bin_path);

}  // namespace tsr
