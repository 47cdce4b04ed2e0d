// Strict decimal parsing for values a user types (options, environment).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tsr {

// Digits only: no sign, no spaces, no 0x, and a value that does not fit is
// refused rather than clamped (strtoull turns "-1" and 2^64 into 2^64-1).
std::optional<uint64_t> parse_decimal_u64(std::string_view text);

}  // namespace tsr
