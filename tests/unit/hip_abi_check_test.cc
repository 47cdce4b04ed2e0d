// The AMDGPU metadata reader and ABI check on code objects clang-15 builds
// from hand-written HIP (hidden arguments allowed after the explicit ones),
// and on mutated and truncated ones: the artifact is untrusted, every
// malformation is a clear internal error, never a crash. Skips without clang-15.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "spec/abi.h"
#include "support/elf64_reader.h"
#include "targets/hip/hip_abi_check.h"
#include "targets/hip/hip_toolchain.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

// relu: in0, out, n; reads blockDim.x from the implicit arguments, so clang
// appends hidden_* arguments after the three explicit ones.
constexpr const char* kHiddenArgsKernel =
    "extern \"C\" __attribute__((global)) void relu_k(const float* __restrict__ in0, float* __restrict__ out,\n"
    "                                                 long long n) {\n"
    "  const unsigned short* ia = (const unsigned short*)__builtin_amdgcn_implicitarg_ptr();\n"
    "  long long i = (long long)__builtin_amdgcn_workgroup_id_x() * ia[6] + __builtin_amdgcn_workitem_id_x();\n"
    "  if (i < n) out[i] = in0[i] > 0.0f ? in0[i] : 0.0f;\n"
    "}\n";

class HipAbiCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const ToolchainInfo info = hip::find_hip_clang();
    if (!info.found) GTEST_SKIP() << "hip toolchain unavailable: " << info.why_unavailable;
    static const Expected<std::vector<uint8_t>> built = hip::compile_code_object(kHiddenArgsKernel, "gfx90a", "relu_k");
    ASSERT_TRUE(built.ok()) << built.error().message();
    object = *built;
  }

  // The metadata note's descriptor range within `object`.
  std::pair<uint64_t, uint64_t> note_range() const {
    Expected<elf::Object> o = elf::read_object(object, 224, "EM_AMDGPU", "code object");
    EXPECT_TRUE(o.ok());
    for (const elf::Section& s : o->sections)
      if (s.type == elf::kShtNote)
        for (const elf::Note& n : *elf::read_notes(elf::Bytes{object}, s))
          if (n.type == 32) return {n.desc_offset, n.desc_size};
    ADD_FAILURE() << "no metadata note";
    return {0, 0};
  }

  // Replaces the first occurrence of `from` inside the note with `to` (same length).
  std::vector<uint8_t> mutate_note(const std::string& from, const std::string& to) const {
    std::vector<uint8_t> bytes = object;
    const auto [off, size] = note_range();
    auto begin = bytes.begin() + static_cast<std::ptrdiff_t>(off);
    auto it = std::search(begin, begin + static_cast<std::ptrdiff_t>(size), from.begin(), from.end());
    EXPECT_NE(it, begin + static_cast<std::ptrdiff_t>(size)) << from;
    std::copy(to.begin(), to.end(), it);
    return bytes;
  }

  std::string check(const std::vector<uint8_t>& bytes) const {
    const KernelAbi abi = kernel_abi(elementwise("relu_k", DType::f32, {Op::relu}, rt("n")));
    Status s = hip::check_code_object_abi(bytes, "relu_k", abi);
    return s ? "ok" : s.error().message();
  }

  std::vector<uint8_t> object;
};

TEST_F(HipAbiCheck, HiddenArgumentsFollowTheExplicitOnes) {
  Expected<hip::CodeObjectMetadata> meta = hip::read_code_object_metadata(object);
  ASSERT_TRUE(meta.ok()) << meta.error().message();
  EXPECT_EQ(meta->target, "amdgcn-amd-amdhsa--gfx90a");
  ASSERT_EQ(meta->kernels.size(), 1u);
  const hip::CodeObjectKernel& k = meta->kernels[0];
  EXPECT_EQ(k.name, "relu_k");
  EXPECT_EQ(k.symbol, "relu_k.kd");
  ASSERT_GT(k.args.size(), 3u);
  EXPECT_EQ(k.args[0].value_kind, "global_buffer");
  EXPECT_EQ(k.args[1].value_kind, "global_buffer");
  EXPECT_EQ(k.args[2].value_kind, "by_value");
  EXPECT_EQ(k.args[2].offset, 16u);
  EXPECT_EQ(k.args[3].value_kind, "hidden_global_offset_x");
  EXPECT_EQ(k.args[3].offset, 24u);
  EXPECT_EQ(k.kernarg_segment_size, 80u);
  EXPECT_EQ(check(object), "ok");
}

TEST_F(HipAbiCheck, MutatedMetadataIsAnInternalError) {
  // Another name: the kernel is missing.
  EXPECT_EQ(check(mutate_note("relu_k.kd", "relu_q.kd")),
            "internal error: code object kernel 'relu_k' has kernel descriptor 'relu_q.kd', expected 'relu_k.kd'");
  // The scalar passed as a pointer.
  EXPECT_EQ(check(mutate_note("by_value", "by_vaXue")),
            "internal error: code object kernel 'relu_k' argument 2 is by_vaXue of 8 bytes at offset 16, binding "
            "'n' (scalar) needs by_value of 8 bytes at offset 16");
  // A buffer of the wrong size (msgpack fixint 8 after ".size" -> 4).
  EXPECT_EQ(check(mutate_note(std::string(".size\x08", 6), std::string(".size\x04", 6))),
            "internal error: code object kernel 'relu_k' argument 0 is global_buffer of 4 bytes at offset 0, binding "
            "'in0' (in) needs global_buffer of 8 bytes at offset 0");
  // A hidden argument moved over the explicit ones.
  EXPECT_EQ(check(mutate_note("hidden_global_offset_x", "global_bufferXXXXXXXXX")).rfind(
                "internal error: code object kernel 'relu_k' has 4 explicit arguments, the kernel ABI has 3", 0),
            0u);
  // Bytes that are not MessagePack where the map starts.
  const auto [off, size] = note_range();
  std::vector<uint8_t> garbage = object;
  std::fill(garbage.begin() + static_cast<std::ptrdiff_t>(off), garbage.begin() + static_cast<std::ptrdiff_t>(off + 4),
            0xc1);   // 0xc1 is never used in MessagePack
  EXPECT_EQ(check(garbage).rfind("internal error: malformed code object: the metadata note is not MessagePack (", 0),
            0u)
      << check(garbage);
  // A note descriptor size past its section.
  std::vector<uint8_t> long_note = object;
  const uint32_t huge = 0x7fffff00u;
  std::memcpy(long_note.data() + off - 16, &huge, 4);   // namesz, descsz, type, "AMDGPU\0" padded to 8, desc
  EXPECT_EQ(check(long_note), "internal error: malformed code object: a note runs past its section");
}

TEST_F(HipAbiCheck, TruncatedOrForeignElfIsRejected) {
  EXPECT_EQ(check({}), "internal error: malformed code object: no ELF header");
  std::vector<uint8_t> head(object.begin(), object.begin() + 200);
  EXPECT_EQ(check(head), "internal error: malformed code object: section table out of range");
  std::vector<uint8_t> cut(object.begin(), object.end() - 1);
  EXPECT_EQ(check(cut), "internal error: malformed code object: section table out of range");
  std::vector<uint8_t> machine = object;
  machine[18] = 62;   // EM_X86_64
  EXPECT_EQ(check(machine), "internal error: malformed code object: e_machine is not EM_AMDGPU");
  std::vector<uint8_t> be = object;
  be[5] = 2;
  EXPECT_EQ(check(be), "internal error: malformed code object: not a little-endian ELF-64 object");
  // Every prefix of the object is rejected cleanly (no read outside the bytes).
  for (size_t n = 0; n < object.size(); n += 97) {
    std::vector<uint8_t> prefix(object.begin(), object.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_NE(check(prefix), "ok") << n;
  }
}

}  // namespace
}  // namespace tsr
