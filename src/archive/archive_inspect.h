// A JSON description of an archive for `tesserac inspect` and tooling.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "support/error.h"

namespace tsr {

// Format version, file size, metadata, and per kernel: identity, family,
// dtype, ABI (bindings with role, dtype and shape), variants (target,
// artifact kind, entry, key, toolchain, blob offset/size/sha256, metadata)
// and verdicts. Keys sorted, two-space indent: stable text for golden tests.
Expected<std::string> inspect_json(std::span<const uint8_t> archive_bytes);

}  // namespace tsr
