// The stub's CRC-32C: known answers (RFC 3720 B.4) and the SSE4.2 path
// (three interleaved streams joined by shifting) against the table path.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tesserart.h"

// Internal to the stub (runtime-stub/src/tsr_internal.h); reachable when linked statically.
extern "C" uint32_t tsr_crc32c_portable(const void* data, size_t size);

namespace tsr {
namespace {

TEST(StubCrc32c, KnownAnswers) {
  const std::string digits = "123456789";
  EXPECT_EQ(tsr_crc32c(digits.data(), digits.size()), 0xe3069283u);
  EXPECT_EQ(tsr_crc32c_portable(digits.data(), digits.size()), 0xe3069283u);
  EXPECT_EQ(tsr_crc32c(nullptr, 0), 0u);
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff);
  EXPECT_EQ(tsr_crc32c(zeros.data(), 32), 0x8a9136aau);
  EXPECT_EQ(tsr_crc32c(ones.data(), 32), 0x62a8ab43u);
}

TEST(StubCrc32c, FastPathMatchesTablePathForManyLengthsAndOffsets) {
  std::mt19937 rng(11);
  std::vector<uint8_t> data(200000);
  for (uint8_t& b : data) b = uint8_t(rng());
  for (size_t n = 0; n <= 3000; ++n)
    ASSERT_EQ(tsr_crc32c(data.data() + n % 7, n), tsr_crc32c_portable(data.data() + n % 7, n)) << n;
  for (size_t n = 3000; n <= data.size() - 8; n += 1231)
    ASSERT_EQ(tsr_crc32c(data.data() + n % 5, n), tsr_crc32c_portable(data.data() + n % 5, n)) << n;
}

TEST(StubCrc32c, EverySingleByteFlipChangesTheCrc) {
  std::mt19937 rng(5);
  std::vector<uint8_t> data(4096);
  for (uint8_t& b : data) b = uint8_t(rng());
  const uint32_t good = tsr_crc32c(data.data(), data.size());
  for (size_t i = 0; i < data.size(); ++i)
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff), uint8_t(rng() | 1)}) {
      data[i] ^= mask;
      ASSERT_NE(tsr_crc32c(data.data(), data.size()), good) << i;
      data[i] ^= mask;
    }
}

}  // namespace
}  // namespace tsr
