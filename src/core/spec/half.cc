#include "spec/half.h"

#include <cmath>

namespace tsr {

uint16_t f32_to_f16(float f) {
  const uint32_t u = f32_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);            // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);           // overflow -> inf
  if (abs < 0x38800000u) {                                                       // subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);                   // < 2^-25 -> 0
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exp;   // 14 + (113 - exp) ... yields bits for 2^-24 units
    uint32_t half = mant >> (shift - 0);
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t r = abs - 0x38000000u;                  // rebias exponent 127 -> 15
  r += 0xfffu + ((r >> 13) & 1u);                  // round to nearest even on 13 dropped bits
  return static_cast<uint16_t>(sign | (r >> 13));
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return f32_from_bits(sign | 0x7f800000u | (mant << 13));
  return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
}

double round_to_storage(double v, DType t) {
  const float f = static_cast<float>(v);
  switch (t) {
    case DType::f32: return f;
    case DType::f16: return f16_to_f32(f32_to_f16(f));
    case DType::bf16: return bf16_to_f32(f32_to_bf16(f));
  }
  return f;
}

double load_element(const uint8_t* data, DType t, int64_t i) {
  switch (t) {
    case DType::f32: { float f; std::memcpy(&f, data + 4 * i, 4); return f; }
    case DType::f16: { uint16_t h; std::memcpy(&h, data + 2 * i, 2); return f16_to_f32(h); }
    case DType::bf16: { uint16_t h; std::memcpy(&h, data + 2 * i, 2); return bf16_to_f32(h); }
  }
  return 0.0;
}

void store_element(uint8_t* data, DType t, int64_t i, double v) {
  const float f = static_cast<float>(v);
  switch (t) {
    case DType::f32: std::memcpy(data + 4 * i, &f, 4); break;
    case DType::f16: { uint16_t h = f32_to_f16(f); std::memcpy(data + 2 * i, &h, 2); break; }
    case DType::bf16: { uint16_t h = f32_to_bf16(f); std::memcpy(data + 2 * i, &h, 2); break; }
  }
}

}  // namespace tsr
