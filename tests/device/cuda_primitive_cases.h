// The conformance cases of the GPU primitives (header-only, test code): one
// small kernel per primitive over the shipped primitive block
// (cuda::primitives_source), with fixed inputs. The same source runs on a GPU
// (NVRTC, the stub: tests/device/cuda_primitive_conformance.cc) and in the CPU
// emulator (its model of each primitive), and the outputs must agree bit for
// bit. The cases choose inputs whose result the PTX ISA defines exactly: the
// mma operands are small multiples of 1/2, so every partial sum is exact in
// f32 whatever order or width the hardware adds in, and a difference can only
// be data movement (fragment layout, operand binding) or a conversion.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "spec/kernel_spec.h"
#include "spec/half.h"
#include "cuda/cuda_primitives.h"
#include "emulator/emulator.h"
#include "target/target.h"

namespace tsr::primitive_conformance {

struct PrimitiveCase {
  std::string name;   // what it checks, e.g. "mma.m16n8k16 bf16"
  KernelSpec spec;    // the ABI: elementwise "ew", one input and one output of the same size
  std::string source;
  uint32_t threads;   // one block of this many threads
  std::vector<uint8_t> input;
};

inline constexpr const char* kSignature =
    "extern \"C\" __global__ void ew(const tsr_t* __restrict__ p_in0, tsr_t* __restrict__ p_out) {\n";

inline std::string case_source(DType mma_type, const std::string& body) {
  cuda::PrimitiveSet all;
  all.half_conversions = all.warp_shuffle = all.tensor_core = true;
  return cuda::primitives_source(all, mma_type) + "typedef unsigned char tsr_t;\n" + kSignature + body + "}\n";
}

// Deterministic inputs (xorshift32).
struct Bits {
  uint32_t state = 0x9e3779b9u;
  uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

inline void put_u32(std::vector<uint8_t>& bytes, size_t word, uint32_t v) { std::memcpy(&bytes[4 * word], &v, 4); }
inline void put_u16(std::vector<uint8_t>& bytes, size_t half, uint16_t v) { std::memcpy(&bytes[2 * half], &v, 2); }

// An elementwise spec whose input and output have `bytes` bytes each.
inline KernelSpec abi_of(DType dtype, size_t bytes) {
  KernelSpec s;
  s.name = "ew";
  s.family = Family::elementwise;
  s.dtype = dtype;
  s.body = ElementwiseSpec{{Op::relu}, Dim{static_cast<int64_t>(bytes / dtype_size(dtype)), ""}};
  return s;
}

// f32 patterns for the narrowing conversions: zeros, infinities, quiet and
// signalling NaNs with payloads, subnormals, the rounding ties of bf16 and
// f16, the edges of f16 overflow and underflow, then random bits.
inline std::vector<uint32_t> f32_patterns(size_t n) {
  std::vector<uint32_t> v = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
                             0x7fbfffff, 0x7fc12345, 0xffd5a5a5, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000,
                             0x3f808000, 0x3f818000, 0x3f808001, 0x3f807fff, 0xbf818000, 0x7f7fffff, 0x7f7f8000,
                             0x7f7f7fff, 0x477fe000, 0x477fefff, 0x477ff000, 0xc77ff000, 0x33800000, 0x33000000,
                             0x33000001, 0x32ffffff, 0x38800000, 0x38800fff, 0x387fe000, 0x387ff000, 0x3f801000,
                             0x3f803000, 0x3f802fff};
  Bits bits;
  while (v.size() < n / 2) v.push_back(bits.next());
  // Half of them in f16's range (exponents 2^-25 .. 2^16), where its rounding matters.
  while (v.size() < n) v.push_back((bits.next() & 0x807fffffu) | ((102u + bits.next() % 41u) << 23));
  return v;
}

inline PrimitiveCase narrowing_case(const std::string& name, const std::string& primitive) {
  constexpr size_t kCount = 8192;
  PrimitiveCase c{name, abi_of(DType::f32, 4 * kCount), "", 256, std::vector<uint8_t>(4 * kCount)};
  const std::vector<uint32_t> v = f32_patterns(kCount);
  for (size_t i = 0; i < kCount; ++i) put_u32(c.input, i, v[i]);
  c.source = case_source(DType::bf16,
                         "  for (int i = threadIdx.x; i < 8192; i += blockDim.x)\n"
                         "    tsr_stg((unsigned short*)p_out, i, " + primitive +
                             "(__uint_as_float(tsr_ldg((const unsigned*)p_in0, i))));\n");
  return c;
}

// lanes 8i..8i+7 give the rows of matrix i, in a scrambled order, from a
// 32-row tile of 8 halves whose shared rows are 16 halves apart.
inline PrimitiveCase ldmatrix_case(const std::string& name, const std::string& primitive) {
  PrimitiveCase c{name, abi_of(DType::f16, 1024), "", 32, std::vector<uint8_t>(1024)};
  Bits bits;
  for (size_t i = 0; i < 256; ++i) put_u16(c.input, i, static_cast<uint16_t>(bits.next()));
  c.source = case_source(DType::f16,
                         "  __shared__ __align__(16) unsigned short tile[32 * 16];\n"
                         "  const int l = threadIdx.x;\n"
                         "  for (int j = 0; j < 8; ++j) tile[l * 16 + j] = tsr_ldg((const unsigned short*)p_in0, l * 8 + j);\n"
                         "  tsr_syncthreads();\n"
                         "  unsigned r[4];\n"
                         "  " + primitive + "(r, tile + ((l * 13 + 5) % 32) * 16);\n"
                         "  for (int k = 0; k < 4; ++k) tsr_stg((unsigned*)p_out, l * 4 + k, r[k]);\n");
  return c;
}

// One m16n8k16 per warp: per lane A's 4 registers, B's 2, C's 4, then D out.
// A and B hold multiples of 1/2 in [-4, 4], C integers in [-64, 64].
inline PrimitiveCase mma_case(DType type) {
  PrimitiveCase c{std::string("mma.m16n8k16 ") + (type == DType::bf16 ? "bf16" : "f16"), abi_of(type, 1280), "", 32,
                  std::vector<uint8_t>(1280)};
  Bits bits;
  auto half_of = [&](float f) { return type == DType::bf16 ? f32_to_bf16(f) : f32_to_f16(f); };
  for (size_t l = 0; l < 32; ++l) {
    for (size_t w = 0; w < 6; ++w) {
      const float lo = static_cast<float>(static_cast<int>(bits.next() % 17) - 8) / 2;
      const float hi = static_cast<float>(static_cast<int>(bits.next() % 17) - 8) / 2;
      put_u32(c.input, l * 10 + w, static_cast<uint32_t>(half_of(lo)) | (static_cast<uint32_t>(half_of(hi)) << 16));
    }
    for (size_t w = 6; w < 10; ++w) {
      const float acc = static_cast<float>(static_cast<int>(bits.next() % 129) - 64);
      uint32_t u;
      std::memcpy(&u, &acc, 4);
      put_u32(c.input, l * 10 + w, u);
    }
  }
  c.source = case_source(type,
                         "  const unsigned* in = (const unsigned*)p_in0;\n"
                         "  const int l = threadIdx.x;\n"
                         "  unsigned a[4], b[2];\n"
                         "  float d[4];\n"
                         "  for (int k = 0; k < 4; ++k) a[k] = tsr_ldg(in, l * 10 + k);\n"
                         "  for (int k = 0; k < 2; ++k) b[k] = tsr_ldg(in, l * 10 + 4 + k);\n"
                         "  for (int k = 0; k < 4; ++k) d[k] = __uint_as_float(tsr_ldg(in, l * 10 + 6 + k));\n"
                         "  tsr_mma_m16n8k16(d, a, b);\n"
                         "  for (int k = 0; k < 4; ++k) tsr_stg((unsigned*)p_out, l * 4 + k, __float_as_uint(d[k]));\n");
  return c;
}

inline std::vector<PrimitiveCase> primitive_cases() {
  std::vector<PrimitiveCase> cases;
  cases.push_back(narrowing_case("cvt.rn.bf16.f32", "tsr_cvt_f32_to_bf16"));
  cases.push_back(narrowing_case("cvt.rn.f16.f32", "tsr_cvt_f32_to_f16"));
  {
    // Every f16 bit pattern widened.
    PrimitiveCase c{"cvt.f32.f16", abi_of(DType::f32, 4 * 65536), "", 256, std::vector<uint8_t>(4 * 65536)};
    for (uint32_t h = 0; h < 65536; ++h) put_u16(c.input, h, static_cast<uint16_t>(h));
    c.source = case_source(DType::bf16,
                           "  for (int i = threadIdx.x; i < 65536; i += blockDim.x)\n"
                           "    tsr_stg((unsigned*)p_out, i, __float_as_uint(tsr_cvt_f16_to_f32(tsr_ldg((const "
                           "unsigned short*)p_in0, i))));\n");
    cases.push_back(std::move(c));
  }
  {
    // shfl.sync.bfly over 8 warps, every lane mask.
    PrimitiveCase c{"shfl.sync.bfly", abi_of(DType::f32, 4 * 1280), "", 256, std::vector<uint8_t>(4 * 1280)};
    Bits bits;
    for (size_t i = 0; i < 256; ++i) put_u32(c.input, i, bits.next() & 0xbf7fffffu);   // finite
    c.source = case_source(DType::bf16,
                           "  const float v = __uint_as_float(tsr_ldg((const unsigned*)p_in0, threadIdx.x));\n"
                           "  for (int m = 0; m < 5; ++m)\n"
                           "    tsr_stg((unsigned*)p_out, m * 256 + threadIdx.x, "
                           "__float_as_uint(tsr_shfl_xor_sync(0xffffffffu, v, 1 << m)));\n");
    cases.push_back(std::move(c));
  }
  {
    // cp.async.cg 16 with every src-size 0..16 (the rest zero-filled), two
    // groups: after wait_group 1 the older has landed, after one more commit
    // and wait_group 1 the newer too.
    PrimitiveCase c{"cp.async.cg + commit_group + wait_group 1", abi_of(DType::f32, 8192), "", 256,
                    std::vector<uint8_t>(8192)};
    Bits bits;
    for (size_t i = 0; i < 2048; ++i) put_u32(c.input, i, bits.next());
    c.source = case_source(DType::bf16,
                           "  __shared__ __align__(16) unsigned char s0[256 * 16];\n"
                           "  __shared__ __align__(16) unsigned char s1[256 * 16];\n"
                           "  const int t = threadIdx.x;\n"
                           "  tsr_cp_async16(s0 + 16 * t, p_in0 + 16 * t, t % 17);\n"
                           "  tsr_cp_async_commit();\n"
                           "  tsr_cp_async16(s1 + 16 * t, p_in0 + 4096 + 16 * t, (t * 7) % 17);\n"
                           "  tsr_cp_async_commit();\n"
                           "  tsr_cp_async_wait1();\n"
                           "  for (int j = 0; j < 16; ++j) tsr_stg(p_out, 16 * t + j, s0[16 * t + j]);\n"
                           "  tsr_cp_async_commit();\n"
                           "  tsr_cp_async_wait1();\n"
                           "  for (int j = 0; j < 16; ++j) tsr_stg(p_out, 4096 + 16 * t + j, s1[16 * t + j]);\n");
    cases.push_back(std::move(c));
  }
  cases.push_back(ldmatrix_case("ldmatrix.x4", "tsr_ldmatrix_x4"));
  cases.push_back(ldmatrix_case("ldmatrix.x4.trans", "tsr_ldmatrix_x4_trans"));
  cases.push_back(mma_case(DType::bf16));
  cases.push_back(mma_case(DType::f16));
  return cases;
}

// One block of the case's threads, whatever the spec's own plan says.
inline void set_geometry(Artifact& art, const PrimitiveCase& c) {
  art.metadata["cuda.grid"] = "1,1,1";
  art.metadata["cuda.block"] = std::to_string(c.threads) + ",1,1";
  art.metadata["cuda.shared_bytes"] = "0";
}

// The case in the emulator: its output bytes, or why there are none.
inline Expected<std::vector<uint8_t>> run_emulated(const PrimitiveCase& c) {
  Expected<Artifact> art = cuda::emu::build_emulated(c.spec, "sm_80", c.source);
  if (!art) return art.take_error();
  set_geometry(*art, c);
  LaunchArgs args;
  args.buffers = {c.input, std::vector<uint8_t>(c.input.size())};
  if (Status s = cuda::emu::emulate_launch(c.spec, *art, args); !s) return s.take_error();
  return args.buffers[1];
}

// "" when `gpu` and `emulated` agree bit for bit, else where they differ.
inline std::string first_difference(const std::vector<uint8_t>& gpu, const std::vector<uint8_t>& emulated) {
  if (gpu.size() != emulated.size())
    return std::to_string(gpu.size()) + " bytes from the GPU, " + std::to_string(emulated.size()) + " emulated";
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < gpu.size(); ++i)
    if (gpu[i] != emulated[i] && differ++ == 0) first = i;
  if (!differ) return "";
  char at[160];
  const size_t word = first / 4 * 4;
  uint32_t g = 0, e = 0;
  std::memcpy(&g, &gpu[word], std::min<size_t>(4, gpu.size() - word));
  std::memcpy(&e, &emulated[word], std::min<size_t>(4, gpu.size() - word));
  std::snprintf(at, sizeof at, "%zu of %zu bytes differ; first in the word at byte %zu: GPU 0x%08x, emulator 0x%08x",
                differ, gpu.size(), word, g, e);
  return at;
}

}  // namespace tsr::primitive_conformance
