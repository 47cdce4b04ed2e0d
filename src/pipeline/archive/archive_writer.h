// Writes .tfat archives (docs/archive-format.md, format 2.3). Same contents
// give the same bytes: everything is sorted, nothing depends on time or paths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "support/error.h"

namespace tsr {

inline constexpr uint16_t kArchiveMajor = 2;   // 2: x86 kernels of kernel ABI v2 (tesserart_kernel.h)
inline constexpr uint16_t kArchiveMinor = 3;   // 1: verdict PASS_EMULATED, RCPT receipts; 2: hip and xdna variants; 3: x86 routes and delegates (VMET)
inline constexpr uint32_t kArchiveBlobAlignment = 4096;

// Returns the contents sorted the way the archive stores them, or what the
// format cannot represent (a NUL in a string, an unknown artifact kind, a
// shape naming no runtime scalar).
Expected<ArchiveContents> canonicalize_archive(const ArchiveContents& contents);

// The archive bytes, accepted by the stub's validator (tsr_archive_verify)
// before they are returned: its message is the error for contents that break
// a rule of docs/archive-format.md, e.g. "kernel '9bad': name is not a C
// identifier".
Expected<std::vector<uint8_t>> serialize_archive(const ArchiveContents& contents);

// Writes to a temporary file in the destination's directory, fsyncs it and
// renames it over `path`: readers never see a partial archive there.
Status write_archive(const ArchiveContents& contents, const std::string& path);

}  // namespace tsr
