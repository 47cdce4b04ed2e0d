// Exact IEEE-754 binary16 and bfloat16 conversions with round-to-nearest-even,
// used by the oracle at every storage point a kernel has.
#pragma once

#include <cstdint>
#include <cstring>

#include "spec/kernel_spec.h"

namespace tsr {

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float f32_from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
inline float bf16_to_f32(uint16_t h) { return f32_from_bits(static_cast<uint32_t>(h) << 16); }

uint16_t f32_to_f16(float f);
float f16_to_f32(uint16_t h);

// Round a double to the storage dtype and back (double -> f32 -> storage).
double round_to_storage(double v, DType t);

// Read/write element i of a storage buffer as double.
double load_element(const uint8_t* data, DType t, int64_t i);
void store_element(uint8_t* data, DType t, int64_t i, double v);

}  // namespace tsr
