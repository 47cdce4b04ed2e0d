// Reads and verifies .tfat archives through the runtime stub's C reader
// (runtime-stub/src/reader.c): the compiler and the stub share one parser.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "support/error.h"

namespace tsr {

// Every kernel, variant (blob bytes included, hash-checked), verdict and
// metadata entry, in archive order (the writer's canonical order).
Expected<ArchiveContents> read_archive(std::span<const uint8_t> bytes);
Expected<ArchiveContents> read_archive_file(const std::string& path);

// The first problem found: header, index, then every blob hash and padding.
// The message names the region, e.g. "archive checksum mismatch: blob of
// kernel 'k' variant x86:v3: sha256 mismatch".
Status verify_archive(std::span<const uint8_t> bytes);
Status verify_archive_file(const std::string& path);

}  // namespace tsr
