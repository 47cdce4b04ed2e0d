// bf16 elementwise kernels on x86:v4 store through VCVTNEPS2BF16 where the
// CPU has AVX512-BF16 and through the integer round-to-nearest-even elsewhere
// (src/backends/x86/x86_vector_io.cc, tsr_store_vec_cvt). The two must give
// the same bits for every f32 value the math can produce, subnormals (which
// the instruction reads as zero) and NaN included: the default build against
// one with TSR_BF16CVT_OFF, which forces the integer path on any CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "launch/stub_launcher.h"
#include "spec/half.h"
#include "tests/unit/spec_builders.h"
#include "tests/unit/x86_fixture.h"

namespace tsr {
namespace {

using namespace spec_builders;

using testing::cpu_has_avx512_bf16;

class X86Bf16Narrowing : public testing::X86V4Fixture {
 protected:
  void SetUp() override {
    testing::X86V4Fixture::SetUp();
    if (IsSkipped()) return;
    if (!cpu_has_avx512_bf16()) GTEST_SKIP() << "this CPU has no AVX512-BF16: both builds narrow in integers";
  }
  // The output bytes of `spec` on `inputs`, built with or without TSR_BF16CVT_OFF.
  std::vector<uint8_t> run(const KernelSpec& spec, const LaunchArgs& inputs, bool integer_only) {
    Expected<std::string> source = target_->emit(spec, "v4");
    EXPECT_TRUE(source.ok());
    if (!source) return {};
    EXPECT_NE(source->find("tsr_store_vec_cvt"), std::string::npos) << "no VCVTNEPS2BF16 path emitted";
    Expected<Artifact> art = target_->compile(spec, "v4", (integer_only ? "#define TSR_BF16CVT_OFF 1\n" : "") + *source);
    EXPECT_TRUE(art.ok()) << (art ? "" : art.error().message());
    if (!art) return {};
    Expected<std::unique_ptr<StubLauncher>> stub = make_in_memory_stub_launcher(*target_, spec, *art);
    EXPECT_TRUE(stub.ok());
    if (!stub) return {};
    LaunchArgs args = inputs;
    EXPECT_TRUE((*stub)->launch(spec, *art, args).ok());
    return args.buffers.back();
  }
  void expect_same_bits(const KernelSpec& spec, const LaunchArgs& inputs) {
    const std::vector<uint8_t> cvt = run(spec, inputs, false), integer = run(spec, inputs, true);
    ASSERT_EQ(cvt.size(), integer.size());
    size_t differ = 0, first = 0;
    for (size_t i = 0; i + 1 < cvt.size(); i += 2)
      if (std::memcmp(&cvt[i], &integer[i], 2) != 0 && differ++ == 0) first = i / 2;
    EXPECT_EQ(differ, 0u) << spec.name << ": first at element " << first;
  }
};

std::vector<uint8_t> bf16_bytes(const std::vector<uint16_t>& values) {
  std::vector<uint8_t> bytes(values.size() * 2);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Products of two bf16 values are exact in f32 (16 significant bits), so
// they land on every rounding case: exact ties, just above and below them,
// f32 subnormals (tiny x tiny), overflow to inf and NaN operands.
TEST_F(X86Bf16Narrowing, ProductsRoundTheSameOnBothPaths) {
  const KernelSpec spec = elementwise("narrow_mul", DType::bf16, {Op::mul}, rt("n"));
  std::mt19937 rng(7);
  std::vector<uint16_t> a, b;
  for (int i = 0; i < (1 << 20); ++i) {
    a.push_back(static_cast<uint16_t>(rng()));   // every bit pattern: subnormals, inf, NaN among them
    b.push_back(static_cast<uint16_t>(rng()));
  }
  // Subnormal products, every sign: 2^-70 x 2^-60 .. 2^-75 is below 2^-126.
  for (uint16_t e = 0x0c00; e < 0x1200; e += 0x11) {
    a.push_back(e), b.push_back(0x1c7f);
    a.push_back(static_cast<uint16_t>(e | 0x8000)), b.push_back(0x1c01);
  }
  LaunchArgs args;
  args.buffers = {bf16_bytes(a), bf16_bytes(b), std::vector<uint8_t>(a.size() * 2)};
  args.scalars = {static_cast<int64_t>(a.size())};
  expect_same_bits(spec, args);
}

// Every bf16 input through the transcendental ops whose results reach the
// subnormal range (silu, gelu_tanh and sigmoid of large negative inputs).
TEST_F(X86Bf16Narrowing, EveryInputOfTheActivationsTheSameOnBothPaths) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  LaunchArgs args;
  args.buffers = {bf16_bytes(all), std::vector<uint8_t>(all.size() * 2)};
  args.scalars = {static_cast<int64_t>(all.size())};
  for (Op op : {Op::silu, Op::gelu_tanh, Op::sigmoid, Op::exp})
    expect_same_bits(elementwise(std::string("narrow_") + op_name(op), DType::bf16, {op}, rt("n")), args);
}

// The rowwise pass too: rows of values over a wide exponent range (some
// outputs subnormal, rmsnorm and layernorm of tiny rows), at odd widths so
// the head and tail stores run.
TEST_F(X86Bf16Narrowing, RowwiseTheSameOnBothPaths) {
  constexpr int64_t kRows = 64, kCols = 1023;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::vector<uint16_t> x;
  for (int64_t r = 0; r < kRows; ++r) {
    const int scale = static_cast<int>(r % 16) * 10 - 130;   // rows from 2^-130 to 2^20
    for (int64_t c = 0; c < kCols; ++c) x.push_back(f32_to_bf16(std::ldexp(mantissa(rng), scale)));
  }
  LaunchArgs args;
  args.buffers = {bf16_bytes(x), std::vector<uint8_t>(x.size() * 2)};
  for (RowOp op : {RowOp::softmax, RowOp::log_softmax, RowOp::rmsnorm, RowOp::layernorm}) {
    KernelSpec spec = rowwise(std::string("narrow_") + row_op_name(op), DType::bf16, op, st(kRows), st(kCols), false);
    expect_same_bits(spec, args);
  }
}

}  // namespace
}  // namespace tsr
