// Limits on receipt files (docs/limits.md, "Receipt files"). A receipt is
// about 1 KiB; the bound leaves room for thousands of trial shapes and keeps
// a hostile file cheap to refuse.
#pragma once

#include <cstdint>

namespace tsr {

inline constexpr uint64_t kMaxReceiptFileBytes = uint64_t{64} << 10;

}  // namespace tsr
