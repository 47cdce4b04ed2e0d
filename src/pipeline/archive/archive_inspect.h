// A JSON description of an archive for `tesserac inspect` and tooling.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "support/error.h"

namespace tsr {

// Format version, file size, metadata, and per kernel: identity, family,
// dtype, ABI (bindings with role, dtype and shape), variants (target,
// artifact kind, entry, key, toolchain, blob offset/size/sha256, metadata,
// and the receipts bound to it: size, sha256 of the receipt bytes, the
// signing key id (or null, or a malformed trailer's error) and the exact
// text) and verdicts. Keys sorted, two-space indent: stable text for golden tests.
// Only an archive the stub's validator accepts is described (the error is
// its reason, as `tesserac verify` gives it): inspect never shows hashes
// or records it has not checked.
Expected<std::string> inspect_json(std::span<const uint8_t> archive_bytes);

}  // namespace tsr
