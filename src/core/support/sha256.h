#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tsr {

std::vector<uint8_t> sha256(const void* data, size_t size);
std::string sha256_hex(const void* data, size_t size);
inline std::string sha256_hex(std::string_view s) { return sha256_hex(s.data(), s.size()); }
std::string to_hex(const uint8_t* data, size_t size);
// The bytes of lower-case hex text (the inverse of to_hex); empty when the
// text is not an even number of lower-case hex digits.
std::vector<uint8_t> from_lower_hex(std::string_view hex);

}  // namespace tsr
