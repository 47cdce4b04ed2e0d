/* SHA-256 as specified in FIPS 180-4; portable C plus the x86 SHA
 * extensions (Intel SHA-NI) when cpuid reports them, because hashing the
 * index and a blob is most of the cost of opening an archive and loading a
 * kernel. The stub hashes header, index and blobs with it. */
#include <stdint.h>
#include <string.h>

#include "tsr_internal.h"

static const uint32_t k_round[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = ((uint32_t)block[4 * i] << 24) | ((uint32_t)block[4 * i + 1] << 16) |
           ((uint32_t)block[4 * i + 2] << 8) | (uint32_t)block[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k_round[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void compress_portable(uint32_t h[8], const uint8_t* p, size_t blocks) {
  for (; blocks > 0; --blocks, p += 64) compress(h, p);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* Four rounds per step with sha256rnds2; the message schedule from
 * W[j] = msg2(msg1(W[j-4], W[j-3]) + W[j-1..j-2 shifted], W[j-1]). */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_shani(uint32_t h[8], const uint8_t* p, size_t blocks) {
  const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i*)&h[0]), 0xB1);   /* CDAB */
  __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i*)&h[4]), 0x1B); /* EFGH */
  __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);                                 /* ABEF */
  state1 = _mm_blend_epi16(state1, tmp, 0xF0);                                       /* CDGH */
  for (; blocks > 0; --blocks, p += 64) {
    const __m128i abef = state0, cdgh = state1;
    __m128i w[4];
    for (int j = 0; j < 16; ++j) {
      __m128i cur;
      if (j < 4) {
        cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i*)(p + 16 * j)), mask);
      } else {
        cur = _mm_sha256msg1_epu32(w[j & 3], w[(j - 3) & 3]);
        cur = _mm_add_epi32(cur, _mm_alignr_epi8(w[(j - 1) & 3], w[(j - 2) & 3], 4));
        cur = _mm_sha256msg2_epu32(cur, w[(j - 1) & 3]);
      }
      w[j & 3] = cur;
      __m128i m = _mm_add_epi32(cur, _mm_loadu_si128((const __m128i*)&k_round[4 * j]));
      state1 = _mm_sha256rnds2_epu32(state1, state0, m);
      state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(m, 0x0E));
    }
    state0 = _mm_add_epi32(state0, abef);
    state1 = _mm_add_epi32(state1, cdgh);
  }
  tmp = _mm_shuffle_epi32(state0, 0x1B);       /* FEBA */
  state1 = _mm_shuffle_epi32(state1, 0xB1);    /* DCHG */
  state0 = _mm_blend_epi16(tmp, state1, 0xF0); /* DCBA */
  state1 = _mm_alignr_epi8(state1, tmp, 8);    /* HGFE */
  _mm_storeu_si128((__m128i*)&h[0], state0);
  _mm_storeu_si128((__m128i*)&h[4], state1);
}

static int have_shani(void) {
  static int cached = -1;   /* racing threads compute and store the same value */
  int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (value < 0) {
    unsigned a, b, c, d, b7 = 0;
    int ok = __get_cpuid(1, &a, &b, &c, &d) && (c >> 19 & 1) && (c >> 9 & 1);   /* sse4.1 ssse3 */
    if (ok && __get_cpuid_max(0, NULL) >= 7) __cpuid_count(7, 0, a, b7, c, d);
    value = ok && (b7 >> 29 & 1);
    __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
  }
  return value;
}
#endif

static void hash(const void* data, size_t size, uint8_t out_digest[32], int portable) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const uint8_t* p = (const uint8_t*)data;
  size_t left = size;
  void (*blocks)(uint32_t*, const uint8_t*, size_t) = compress_portable;
#if defined(__x86_64__) && defined(__GNUC__)
  if (!portable && have_shani()) blocks = compress_shani;
#endif
  blocks(h, p, left / 64);
  p += left / 64 * 64;
  left %= 64;
  uint8_t tail[128];
  memset(tail, 0, sizeof tail);
  if (left) memcpy(tail, p, left);
  tail[left] = 0x80;
  size_t tail_len = left + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = (uint64_t)size * 8u;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
  blocks(h, tail, tail_len / 64);
  for (int i = 0; i < 8; ++i) {
    out_digest[4 * i] = (uint8_t)(h[i] >> 24);
    out_digest[4 * i + 1] = (uint8_t)(h[i] >> 16);
    out_digest[4 * i + 2] = (uint8_t)(h[i] >> 8);
    out_digest[4 * i + 3] = (uint8_t)h[i];
  }
}

void tsr_sha256(const void* data, size_t size, uint8_t out_digest[32]) { hash(data, size, out_digest, 0); }

void tsr_sha256_portable(const void* data, size_t size, uint8_t out_digest[32]) {
  hash(data, size, out_digest, 1);
}
