// The AMDGPU metadata reader and ABI check on code objects clang-15 builds
// from hand-written HIP (hidden arguments allowed after the explicit ones;
// the target and wavefront size the job's arch expects), and on mutated and
// truncated ones: the artifact is untrusted, every
// malformation is a clear internal error, never a crash. Skips without clang-15.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "spec/abi.h"
#include "support/elf64_reader.h"
#include "hip/hip_abi_check.h"
#include "hip/hip_archs.h"
#include "hip/hip_toolchain.h"
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

  // The metadata note's descriptor range within `code_object`.
  static std::pair<uint64_t, uint64_t> note_range(const std::vector<uint8_t>& code_object) {
    Expected<elf::Object> o = elf::read_object(code_object, 224, "EM_AMDGPU", "code object");
    EXPECT_TRUE(o.ok());
    for (const elf::Section& s : o->sections)
      if (s.type == elf::kShtNote)
        for (const elf::Note& n : *elf::read_notes(elf::Bytes{code_object}, s))
          if (n.type == 32) return {n.desc_offset, n.desc_size};
    ADD_FAILURE() << "no metadata note";
    return {0, 0};
  }
  std::pair<uint64_t, uint64_t> note_range() const { return note_range(object); }

  // Replaces the first occurrence of `from` inside the note with `to` (same length).
  std::vector<uint8_t> mutate_note(const std::string& from, const std::string& to) const {
    return mutate_note(object, from, to);
  }
  static std::vector<uint8_t> mutate_note(const std::vector<uint8_t>& code_object, const std::string& from,
                                          const std::string& to) {
    std::vector<uint8_t> bytes = code_object;
    const auto [off, size] = note_range(code_object);
    auto begin = bytes.begin() + static_cast<std::ptrdiff_t>(off);
    auto it = std::search(begin, begin + static_cast<std::ptrdiff_t>(size), from.begin(), from.end());
    EXPECT_NE(it, begin + static_cast<std::ptrdiff_t>(size)) << from;
    std::copy(to.begin(), to.end(), it);
    return bytes;
  }

  std::string check(const std::vector<uint8_t>& bytes, const std::string& arch = "gfx90a") const {
    const KernelAbi abi = kernel_abi(elementwise("relu_k", DType::f32, {Op::relu}, rt("n")));
    Status s = hip::check_code_object_abi(bytes, *hip::find_hip_arch(arch), "relu_k", abi);
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
  EXPECT_EQ(k.wavefront_size, 64u);
  EXPECT_EQ(check(object), "ok");
}

TEST_F(HipAbiCheck, TargetMustBeTheJobsArch) {
  // A real gfx90a object checked as another arch's artifact.
  EXPECT_EQ(check(object, "gfx940"),
            "internal error: code object for hip:gfx940 targets 'amdgcn-amd-amdhsa--gfx90a', expected "
            "'amdgcn-amd-amdhsa--gfx940'");
  // The processor in the metadata rewritten (same length: gfx908, MI100).
  EXPECT_EQ(check(mutate_note("amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdhsa--gfx908")),
            "internal error: code object for hip:gfx90a targets 'amdgcn-amd-amdhsa--gfx908', expected "
            "'amdgcn-amd-amdhsa--gfx90a'");
  // Another triple in front of the right processor.
  EXPECT_EQ(check(mutate_note("amdgcn-amd-amdhsa--gfx90a", "amdgcn-amd-amdpal--gfx90a")),
            "internal error: code object for hip:gfx90a targets 'amdgcn-amd-amdpal--gfx90a', expected "
            "'amdgcn-amd-amdhsa--gfx90a'");
  // clang built with a feature suffix (xnack-): right processor, but it loads on xnack-off devices only.
  Expected<std::vector<uint8_t>> xnack_off = hip::compile_code_object(kHiddenArgsKernel, "gfx90a:xnack-", "relu_k");
  ASSERT_TRUE(xnack_off.ok()) << xnack_off.error().message();
  Expected<hip::CodeObjectMetadata> xnack_meta = hip::read_code_object_metadata(*xnack_off);
  ASSERT_TRUE(xnack_meta.ok()) << xnack_meta.error().message();
  EXPECT_EQ(xnack_meta->target, "amdgcn-amd-amdhsa--gfx90a:xnack-");
  EXPECT_EQ(check(*xnack_off),
            "internal error: code object for hip:gfx90a targets 'amdgcn-amd-amdhsa--gfx90a:xnack-': features xnack- "
            "restrict the devices that load it, the artifact is recorded as gfx90a with xnack and sramecc any "
            "('amdgcn-amd-amdhsa--gfx90a')");
}

TEST_F(HipAbiCheck, WavefrontSizeMustBeTheArchs) {
  // msgpack positive fixint 64 (0x40) after ".wavefront_size" -> 32 (0x20): a wave32 kernel for wave64 gfx90a.
  EXPECT_EQ(check(mutate_note(std::string(".wavefront_size\x40", 16), std::string(".wavefront_size\x20", 16))),
            "internal error: code object kernel 'relu_k' has wavefront size 32, gfx90a kernels are built for 64");
  // A real gfx1100 object: wave32, as the emitter builds RDNA, passes; as wave64 it is refused.
  Expected<std::vector<uint8_t>> rdna3 = hip::compile_code_object(kHiddenArgsKernel, "gfx1100", "relu_k");
  ASSERT_TRUE(rdna3.ok()) << rdna3.error().message();
  Expected<hip::CodeObjectMetadata> rdna3_meta = hip::read_code_object_metadata(*rdna3);
  ASSERT_TRUE(rdna3_meta.ok() && rdna3_meta->kernels.size() == 1);
  EXPECT_EQ(rdna3_meta->kernels[0].wavefront_size, 32u);
  EXPECT_EQ(check(*rdna3, "gfx1100"), "ok");
  const std::vector<uint8_t> wave64 =
      mutate_note(*rdna3, std::string(".wavefront_size\x20", 16), std::string(".wavefront_size\x40", 16));
  EXPECT_EQ(check(wave64, "gfx1100"),
            "internal error: code object kernel 'relu_k' has wavefront size 64, gfx1100 kernels are built for 32");
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
