#include <gtest/gtest.h>

#include <cmath>

#include "spec/half.h"

namespace tsr {
namespace {

// GCC 12 implements _Float16 on x86-64 with correct round-to-nearest-even;
// compare our conversions exhaustively against it.
TEST(Half, F16RoundTripAllBitPatterns) {
  for (uint32_t h = 0; h < 65536; ++h) {
    _Float16 ref;
    uint16_t bits = static_cast<uint16_t>(h);
    std::memcpy(&ref, &bits, 2);
    const float f = f16_to_f32(bits);
    if (std::isnan(static_cast<float>(ref))) {
      EXPECT_TRUE(std::isnan(f));
      continue;
    }
    ASSERT_EQ(f32_bits(f), f32_bits(static_cast<float>(ref))) << h;
    ASSERT_EQ(f32_to_f16(f), bits) << h;
  }
}

TEST(Half, F16RoundsToNearestEven) {
  // Sample many f32 values between f16 neighbours, including subnormals.
  for (uint32_t u = 0x33000000u; u < 0x47800000u; u += 0x1357u) {
    const float f = f32_from_bits(u);
    const _Float16 ref = static_cast<_Float16>(f);
    uint16_t ref_bits;
    std::memcpy(&ref_bits, &ref, 2);
    ASSERT_EQ(f32_to_f16(f), ref_bits) << std::hex << u;
    ASSERT_EQ(f32_to_f16(-f), ref_bits | 0x8000u) << std::hex << u;
  }
}

TEST(Half, Bf16RoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3f808000u)), 0x3f80);   // tie, even stays
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3f818000u)), 0x3f82);   // tie, odd rounds up
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3f808001u)), 0x3f81);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
  EXPECT_EQ(bf16_to_f32(f32_to_bf16(INFINITY)), INFINITY);
}

}  // namespace
}  // namespace tsr
