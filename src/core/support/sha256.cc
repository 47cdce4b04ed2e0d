#include "support/sha256.h"

#include <openssl/evp.h>

namespace tsr {

std::vector<uint8_t> sha256(const void* data, size_t size) {
  std::vector<uint8_t> digest(32);
  unsigned int len = 0;
  EVP_Digest(data, size, digest.data(), &len, EVP_sha256(), nullptr);
  return digest;
}

std::string to_hex(const uint8_t* data, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(digits[data[i] >> 4]);
    out.push_back(digits[data[i] & 15]);
  }
  return out;
}

std::vector<uint8_t> from_lower_hex(std::string_view hex) {
  auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  std::vector<uint8_t> out;
  if (hex.size() % 2) return out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return {};
    out.push_back(uint8_t(hi << 4 | lo));
  }
  return out;
}

std::string sha256_hex(const void* data, size_t size) {
  std::vector<uint8_t> d = sha256(data, size);
  return to_hex(d.data(), d.size());
}

}  // namespace tsr
