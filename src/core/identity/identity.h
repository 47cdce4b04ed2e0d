// Kernel identity: SHA-256 over an identity-format version and the codec's
// canonical binary encoding. Independent of YAML key order, comments,
// whitespace and number spelling; sensitive to every semantic field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"

namespace tsr {

inline constexpr const char* kIdentityFormat = "tesserac-identity/1";

std::vector<uint8_t> canonical_encoding(const KernelSpec& spec);
std::string kernel_identity(const KernelSpec& spec);   // 64 lower-case hex digits

}  // namespace tsr
