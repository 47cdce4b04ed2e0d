// The device conformance cases of the GPU primitives (tests/device/
// cuda_primitive_cases.h) without a GPU: each compiles with NVRTC to the
// instruction it is about, and its emulated output is what the PTX ISA's
// definition of the primitive gives (computed here from the ISA's tables, not
// from the emulator). On a GPU, tests/device/cuda_check.sh then requires the
// hardware's bytes to equal the emulator's.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "cuda/cuda_target.h"
#include "tests/device/cuda_primitive_cases.h"
#include "tests/unit/emulator_test_support.h"

namespace tsr {
namespace {

using primitive_conformance::PrimitiveCase;

uint32_t u32_at(const std::vector<uint8_t>& b, size_t word) {
  uint32_t v;
  std::memcpy(&v, &b[4 * word], 4);
  return v;
}
uint16_t u16_at(const std::vector<uint8_t>& b, size_t half) {
  uint16_t v;
  std::memcpy(&v, &b[2 * half], 2);
  return v;
}

// The ISA's result of each case, from its definition.
std::vector<uint8_t> isa_result(const PrimitiveCase& c) {
  const std::vector<uint8_t>& in = c.input;
  std::vector<uint8_t> out(in.size(), 0);
  if (c.name == "cvt.rn.bf16.f32" || c.name == "cvt.rn.f16.f32") {
    const bool bf16 = c.name == "cvt.rn.bf16.f32";
    for (size_t i = 0; i < 8192; ++i) {
      const float f = f32_from_bits(u32_at(in, i));
      primitive_conformance::put_u16(out, i, bf16 ? f32_to_bf16(f) : f32_to_f16(f));
    }
  } else if (c.name == "cvt.f32.f16") {
    for (size_t i = 0; i < 65536; ++i) {
      const float f = f16_to_f32(u16_at(in, i));
      uint32_t u;
      std::memcpy(&u, &f, 4);
      primitive_conformance::put_u32(out, i, u);
    }
  } else if (c.name == "shfl.sync.bfly") {
    // "shfl.sync": .bfly reads lane (lane ^ mask).
    for (size_t m = 0; m < 5; ++m)
      for (size_t t = 0; t < 256; ++t) primitive_conformance::put_u32(out, m * 256 + t, u32_at(in, t ^ (1u << m)));
  } else if (c.name.rfind("cp.async", 0) == 0) {
    // "cp.async": src-size bytes from the source, the rest of the 16 zero.
    for (size_t t = 0; t < 256; ++t)
      for (size_t j = 0; j < 16; ++j) {
        out[16 * t + j] = j < t % 17 ? in[16 * t + j] : 0;
        out[4096 + 16 * t + j] = j < (t * 7) % 17 ? in[4096 + 16 * t + j] : 0;
      }
  } else if (c.name.rfind("ldmatrix", 0) == 0) {
    // "ldmatrix": lanes 8i..8i+7 address rows 0..7 of matrix i; lane l gets
    // row l/4, elements 2(l%4) and 2(l%4)+1 of each matrix (of its transpose
    // with .trans), the lower in the low half-word.
    const bool trans = c.name.find(".trans") != std::string::npos;
    auto element = [&](size_t matrix, size_t row, size_t col) {
      const size_t tile_row = ((8 * matrix + row) * 13 + 5) % 32;   // the row lane 8*matrix+row addresses
      return u16_at(in, tile_row * 8 + col);
    };
    for (size_t l = 0; l < 32; ++l)
      for (size_t i = 0; i < 4; ++i) {
        const size_t r = l / 4, c0 = 2 * (l % 4);
        const uint16_t lo = trans ? element(i, c0, r) : element(i, r, c0);
        const uint16_t hi = trans ? element(i, c0 + 1, r) : element(i, r, c0 + 1);
        primitive_conformance::put_u32(out, l * 4 + i, lo | (static_cast<uint32_t>(hi) << 16));
      }
  } else if (c.name.rfind("mma", 0) == 0) {
    // "Matrix Fragments for mma.m16n8k16 with floating point type": g = l/4,
    // t = l%4; a0..a3: A[g][2t..], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..];
    // b0, b1: B[2t..][g], B[2t+8..][g]; c0..c3: C[g][2t], C[g][2t+1],
    // C[g+8][2t], C[g+8][2t+1]. The inputs make every sum exact.
    const bool bf16 = c.spec.dtype == DType::bf16;
    auto half = [&](uint16_t h) { return static_cast<double>(bf16 ? bf16_to_f32(h) : f16_to_f32(h)); };
    double A[16][16], B[16][8], C[16][8];
    for (size_t l = 0; l < 32; ++l) {
      const size_t g = l / 4, t = l % 4;
      const size_t base = l * 10;
      for (size_t e = 0; e < 2; ++e) {
        A[g][2 * t + e] = half(u16_at(in, 2 * (base + 0) + e));
        A[g + 8][2 * t + e] = half(u16_at(in, 2 * (base + 1) + e));
        A[g][2 * t + 8 + e] = half(u16_at(in, 2 * (base + 2) + e));
        A[g + 8][2 * t + 8 + e] = half(u16_at(in, 2 * (base + 3) + e));
        B[2 * t + e][g] = half(u16_at(in, 2 * (base + 4) + e));
        B[2 * t + 8 + e][g] = half(u16_at(in, 2 * (base + 5) + e));
      }
      C[g][2 * t] = f32_from_bits(u32_at(in, base + 6));
      C[g][2 * t + 1] = f32_from_bits(u32_at(in, base + 7));
      C[g + 8][2 * t] = f32_from_bits(u32_at(in, base + 8));
      C[g + 8][2 * t + 1] = f32_from_bits(u32_at(in, base + 9));
    }
    for (size_t l = 0; l < 32; ++l) {
      const size_t g = l / 4, t = l % 4;
      const size_t rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
      for (size_t k = 0; k < 4; ++k) {
        double d = C[rows[k]][cols[k]];
        for (size_t i = 0; i < 16; ++i) d += A[rows[k]][i] * B[i][cols[k]];
        const float f = static_cast<float>(d);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        primitive_conformance::put_u32(out, l * 4 + k, u);
      }
    }
  } else {
    ADD_FAILURE() << "no ISA result for case " << c.name;
  }
  return out;
}

class CudaPrimitiveConformance : public emulator_test::EmulatorFixture {};

TEST_F(CudaPrimitiveConformance, EmulatedCasesGiveTheIsaResults) {
  const std::vector<PrimitiveCase> cases = primitive_conformance::primitive_cases();
  EXPECT_EQ(cases.size(), 9u);
  for (const PrimitiveCase& c : cases) {
    SCOPED_TRACE(c.name);
    Expected<std::vector<uint8_t>> out = primitive_conformance::run_emulated(c);
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(primitive_conformance::first_difference(isa_result(c), *out), "");
    EXPECT_NE(*out, std::vector<uint8_t>(out->size(), 0)) << "a case must write something";
  }
}

// The comparison the device check makes bites.
TEST(CudaPrimitiveConformanceCompare, FirstDifferenceNamesTheWord) {
  std::vector<uint8_t> a(16, 0), b(16, 0);
  EXPECT_EQ(primitive_conformance::first_difference(a, b), "");
  b[9] = 0x80;
  b[15] = 1;
  EXPECT_EQ(primitive_conformance::first_difference(a, b),
            "2 of 16 bytes differ; first in the word at byte 8: GPU 0x00000000, emulator 0x00008000");
}

// Each case compiles with NVRTC, for the PTX and an sm_90 cubin, as the cuda
// target compiles emitted source, and its PTX has the instruction it checks.
TEST(CudaPrimitiveConformanceNvrtc, EveryCaseCompilesToItsInstruction) {
  const std::unique_ptr<Target> cuda = make_cuda_target();
  const ToolchainInfo info = cuda->toolchain();
  if (!info.found) GTEST_SKIP() << "cuda toolchain unavailable: " << info.why_unavailable;
  const std::map<std::string, std::string> instruction = {
      {"cvt.rn.bf16.f32", "cvt.rn.bf16.f32"},
      {"cvt.rn.f16.f32", "cvt.rn.f16.f32"},
      {"cvt.f32.f16", "cvt.f32.f16"},
      {"shfl.sync.bfly", "shfl.sync.bfly.b32"},
      {"cp.async.cg + commit_group + wait_group 1", "cp.async.wait_group 1"},
      {"ldmatrix.x4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
      {"ldmatrix.x4.trans", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
      {"mma.m16n8k16 bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
      {"mma.m16n8k16 f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
  };
  for (const PrimitiveCase& c : primitive_conformance::primitive_cases()) {
    SCOPED_TRACE(c.name);
    Expected<Artifact> ptx = cuda->compile(c.spec, "ptx", c.source);
    ASSERT_TRUE(ptx.ok()) << ptx.error().message();
    const std::string text(ptx->bytes.begin(), ptx->bytes.end());
    ASSERT_TRUE(instruction.count(c.name));
    EXPECT_NE(text.find(instruction.at(c.name)), std::string::npos) << text;
    if (c.name.rfind("cp.async", 0) == 0) {
      EXPECT_NE(text.find("cp.async.cg.shared.global"), std::string::npos) << text;
      EXPECT_NE(text.find("cp.async.commit_group"), std::string::npos) << text;
    }
    Expected<Artifact> cubin = cuda->compile(c.spec, "sm_90", c.source);
    EXPECT_TRUE(cubin.ok()) << cubin.error().message();
  }
}

}  // namespace
}  // namespace tsr
