// The stub's SHA-256 against OpenSSL (through support/sha256.h).
#include <gtest/gtest.h>

#include <random>

#include "support/sha256.h"
#include "tesserart.h"

// Internal to the stub (runtime-stub/src/tsr_internal.h); reachable when linked statically.
extern "C" void tsr_sha256_portable(const void* data, size_t size, uint8_t out_digest[32]);

namespace tsr {
namespace {

std::string stub_hex(const std::vector<uint8_t>& data) {
  uint8_t digest[32];
  tsr_sha256(data.data(), data.size(), digest);
  std::string fast = to_hex(digest, 32);
  tsr_sha256_portable(data.data(), data.size(), digest);
  EXPECT_EQ(fast, to_hex(digest, 32)) << "SHA-NI and portable paths differ at length " << data.size();
  return fast;
}

TEST(StubSha256, KnownAnswer) {
  std::string abc = "abc";
  EXPECT_EQ(stub_hex({abc.begin(), abc.end()}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(stub_hex({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(StubSha256, MatchesOpenSslForEveryLengthUpTo300AndALargeBuffer) {
  std::mt19937 rng(7);
  std::vector<uint8_t> data;
  for (size_t n = 0; n <= 300; ++n) {
    EXPECT_EQ(stub_hex(data), sha256_hex(data.data(), data.size())) << n;
    data.push_back(uint8_t(rng()));
  }
  data.resize(3 << 20);
  for (uint8_t& b : data) b = uint8_t(rng());
  EXPECT_EQ(stub_hex(data), sha256_hex(data.data(), data.size()));
}

}  // namespace
}  // namespace tsr
