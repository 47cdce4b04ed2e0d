// Reads and verifies .tfat archives through the runtime stub's C reader
// (runtime-stub/src/reader.c, validate.c): the compiler and the stub share
// one parser and one validator.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "archive/archive_contents.h"
#include "support/error.h"
#include "tesserart.h"

namespace tsr {

struct ArchiveCloser {
  void operator()(tsr_archive* a) const { tsr_archive_close(a); }
};
using ArchiveHandle = std::unique_ptr<tsr_archive, ArchiveCloser>;

// Opens `bytes` (borrowed: they must outlive the handle) and runs the stub's
// validator, tsr_archive_verify: every rule of docs/archive-format.md, the
// index hashes and both checksums of every blob. Every compiler path that
// reads an archive it did not just write starts here. The error is the
// stub's one-line reason, e.g. "kernel 'k': identity is not 64 lower-case
// hex digits".
Expected<ArchiveHandle> open_verified_archive(std::span<const uint8_t> bytes);

// A stub status as a Status: the stub's message where it gave one, else the
// status name ("archive corrupt").
Status stub_status(tsr_status s, const char* message = "");

// One variant's metadata (launch geometry, routes, tune.* records), by key.
Expected<std::map<std::string, std::string>> read_variant_metadata(tsr_archive* archive, size_t kernel,
                                                                   size_t variant);

// Every kernel, variant (blob bytes included), verdict and metadata entry of
// a verified archive, in archive order (the writer's canonical order).
Expected<ArchiveContents> read_archive(std::span<const uint8_t> bytes);
// The same from an archive open_verified_archive already opened.
Expected<ArchiveContents> read_archive(tsr_archive* verified);

// An archive file read once and verified: its bytes and the stub's handle on
// them, for a command that both reads the records and launches kernels.
struct VerifiedArchiveFile {
  std::vector<uint8_t> bytes;
  ArchiveHandle handle;   // borrows `bytes`; declared after them, so closed first
};
// As open_verified_archive; the message starts with the path, once.
Expected<VerifiedArchiveFile> open_verified_archive_file(const std::string& path);
// As read_archive; the message starts with the path, once.
Expected<ArchiveContents> read_archive_file(const std::string& path);

// The first problem open_verified_archive finds, e.g. "archive checksum
// mismatch: blob of kernel 'k' variant x86:v3: sha256 mismatch".
Status verify_archive(std::span<const uint8_t> bytes);
// As verify_archive; the message starts with the path, once.
Status verify_archive_file(const std::string& path);

}  // namespace tsr
