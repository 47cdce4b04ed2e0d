// The xdna target without an NPU: the closed manifest and its refusals
// (exact text), the device-artifact sidecar (hashes verified, located
// errors), the xclbin writer's determinism and content-derived UUID, the
// artifact key's dependence on the device artifacts, and the bounds-checked
// reader's refusals of the seed corpus's bad files. Device artifacts are the
// SYNTHETIC placeholders of examples/xdna (not AIE code).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "driver/spec_loading.h"
#include "support/file_io.h"
#include "support/sha256.h"
#include "registry/registry.h"
#include "xdna/xclbin_reader.h"
#include "xdna/xclbin_writer.h"
#include "xdna/xdna_manifest.h"
#include "tests/unit/spec_builders.h"

namespace tsr {
namespace {

using namespace spec_builders;

const std::string kManifest =
    "the NPU runs only: bf16_add_1024: elementwise ops [add], dtype bf16, shape {N: 1024}; ABI in0: bf16[1024], "
    "in1: bf16[1024], out: bf16[1024]; and bf16_matmul_128x64x128: matmul, dtype bf16, accumulate f32, shape {M: "
    "128, N: 128, K: 64}, layout {a: row, b: row}, no epilogue; ABI in0 (a): bf16[128, 64], in1 (b): bf16[64, "
    "128], out (c): bf16[128, 128]";

std::string refusal(const KernelSpec& spec, const std::string& arch = "npu1") {
  return find_target("xdna")->unsupported_reason(spec, arch);
}

KernelSpec manifest_matmul() {
  KernelSpec s = matmul("mm", DType::bf16, st(128), st(128), st(64), Layout::row, Layout::row, {});
  s.accumulate = DType::f32;
  return s;
}

TEST(XdnaManifest, AdmitsExactlyItsTwoKernelsOnBothArches) {
  const Target* t = find_target("xdna");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->archs(), (std::vector<std::string>{"npu1", "npu4"}));
  for (const std::string arch : {"npu1", "npu4"}) {
    EXPECT_EQ(refusal(elementwise("add", DType::bf16, {Op::add}, st(1024)), arch), "");
    EXPECT_EQ(refusal(manifest_matmul(), arch), "");
  }
  EXPECT_EQ(refusal(manifest_matmul(), "npu2"),
            "architecture npu2 is not supported by the xdna target (supported: npu1, npu4)");
}

TEST(XdnaManifest, RefusesEverythingElseByNameListingTheManifest) {
  auto expect = [](const KernelSpec& s, const std::string& why) {
    EXPECT_EQ(refusal(s), "kernel '" + s.name + "' is not in the xdna manifest (" + why + "); " + kManifest);
  };
  expect(elementwise("f32add", DType::f32, {Op::add}, st(1024)), "dtype f32 is not bf16");
  expect(elementwise("rt", DType::bf16, {Op::add}, rt("n")), "in0 has shape [n], not [1024]");
  expect(elementwise("small", DType::bf16, {Op::add}, st(512)), "in0 has shape [512], not [1024]");
  expect(elementwise("sub", DType::bf16, {Op::sub}, st(1024)), "ops [sub] are not [add]");
  expect(elementwise("addrelu", DType::bf16, {Op::add, Op::relu}, st(1024)), "ops [add, relu] are not [add]");
  KernelSpec col = manifest_matmul();
  std::get<MatmulSpec>(col.body).b = Layout::col;
  expect(col, "layout {a: row, b: col} is not {a: row, b: row}");
  KernelSpec epi_mm = manifest_matmul();
  std::get<MatmulSpec>(epi_mm.body).epilogue.push_back(epi(EpilogueOp::Kind::activation, Op::relu));
  expect(epi_mm, "the matmul has an epilogue, the manifest's has none");
  KernelSpec big = manifest_matmul();
  std::get<MatmulSpec>(big.body).k = st(128);
  expect(big, "in0 (a) has shape [128, 128], not [128, 64]");
  KernelSpec acc16 = manifest_matmul();
  acc16.accumulate = DType::bf16;
  expect(acc16, "accumulate is not f32");
  expect(rowwise("sm", DType::bf16, RowOp::softmax, st(128), st(1024), false), "family rowwise is not in it");
}

// A temporary copy of examples/xdna, so tests can break its sidecar and files.
class XdnaSidecar : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tsr_xdna_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::copy(std::string(TSR_SOURCE_DIR) + "/examples/xdna", dir_,
                          std::filesystem::copy_options::recursive);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  KernelSpec spec() {
    DiagnosticEngine diag;
    std::vector<KernelSpec> specs = load_specs({(dir_ / "vec_add_bf16.yaml").string()}, diag);
    EXPECT_EQ(specs.size(), 1u) << diag.render();
    return specs.at(0);
  }
  std::string sidecar() { return *read_input_file((dir_ / "vec_add_bf16.xdna.toml").string(), 1 << 20, "sidecar"); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name, std::ios::binary) << text; }
  void replace_in_sidecar(const std::string& from, const std::string& to) {
    std::string s = sidecar();
    const size_t at = s.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    write("vec_add_bf16.xdna.toml", s.replace(at, from.size(), to));
  }
  std::string compile_error(const std::string& arch = "npu1") {
    const KernelSpec s = spec();
    Expected<Artifact> a = find_target("xdna")->compile(s, arch, "design");
    if (a) return "compiled";
    EXPECT_EQ(a.error().kind(), ErrorKind::invalid_input);
    return a.error().message();
  }
  std::string path(const std::string& name) { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(XdnaSidecar, CompilesToAnXclbinKeyedByTheDeviceArtifacts) {
  const Target* t = find_target("xdna");
  const KernelSpec s = spec();
  Expected<std::string> design = t->emit(s, "npu1");
  ASSERT_TRUE(design.ok()) << design.error().message();
  Expected<Artifact> a = t->compile(s, "npu1", *design);
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->kind, "xclbin");
  EXPECT_EQ(a->entry, "vec_add_bf16");
  EXPECT_EQ(a->bytes, t->compile(s, "npu1", *design)->bytes);   // deterministic
  const std::string pdi_hash = sha256_hex(*read_input_file(path("artifacts/vec_add_bf16.npu1.pdi"), 1 << 20, "pdi"));
  EXPECT_EQ(a->metadata.at("xdna.device_image_sha256"), pdi_hash);
  EXPECT_NE(design->find("device_image pdi " + pdi_hash + "\n"), std::string::npos) << *design;
  // A new instruction stream (and its hash) changes the design text, the key and the bytes.
  write("artifacts/vec_add_bf16.npu1.insts.bin", std::string(8, '\x07'));
  replace_in_sidecar("8a14d973d87a8ba4e633ac473b74ed0bbd1d774117dd11f5eb0b6225c52d2fca",
                     sha256_hex(std::string(8, '\x07')));
  Expected<std::string> design2 = t->emit(spec(), "npu1");
  Expected<Artifact> b = t->compile(spec(), "npu1", *design2);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_NE(*design2, *design);
  EXPECT_NE(b->key, a->key);
  EXPECT_NE(b->bytes, a->bytes);
}

TEST_F(XdnaSidecar, TheAbiCheckFindsTheKernelsIpAndRefusesAnythingElse) {
  const Target* t = find_target("xdna");
  const KernelSpec s = spec();
  Expected<Artifact> a = t->compile(s, "npu1", *t->emit(s, "npu1"));
  ASSERT_TRUE(a.ok()) << a.error().message();
  const Status checked = t->check_abi(s, *a);
  EXPECT_TRUE(checked.ok()) << checked.error().message();
  Artifact renamed = *a;
  renamed.entry = "vec_add_f32";   // an IP the xclbin does not hold
  Status bad = t->check_abi(s, renamed);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::internal);
  EXPECT_NE(bad.error().message().find("ABI check failed for kernel 'vec_add_bf16' (xdna:npu1)"), std::string::npos)
      << bad.error().message();
  EXPECT_NE(bad.error().message().find("IP_LAYOUT has no kernel 'vec_add_f32'"), std::string::npos)
      << bad.error().message();
  Artifact cut = *a;
  cut.bytes.resize(cut.bytes.size() / 2);
  bad = t->check_abi(s, cut);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("the xclbin does not parse"), std::string::npos) << bad.error().message();
}

TEST_F(XdnaSidecar, AHashMismatchIsRefusedAtTheHashWithBothHashes) {
  write("artifacts/vec_add_bf16.npu1.pdi", "tampered");
  EXPECT_EQ(compile_error(),
            path("vec_add_bf16.xdna.toml") + ":10:16: error: SHA-256 mismatch for 'image' " +
                path("artifacts/vec_add_bf16.npu1.pdi") +
                ": the sidecar declares 1069b726c9456058fdff43f306ad6452937839cf203122acd0314a5d66152cde, the file "
                "has " + sha256_hex(std::string("tampered")) + "\n"
                "image_sha256 = \"1069b726c9456058fdff43f306ad6452937839cf203122acd0314a5d66152cde\"\n"
                "               ^");
}

TEST_F(XdnaSidecar, AMissingInstructionStreamIsRefused) {
  std::string s = sidecar();
  const size_t npu1 = s.find("instructions = \"artifacts/vec_add_bf16.npu1");
  write("vec_add_bf16.xdna.toml", s.erase(npu1, s.find('\n', npu1) + 1 - npu1));
  EXPECT_EQ(compile_error(), path("vec_add_bf16.xdna.toml") +
                                 ":7:1: error: missing required key 'instructions' in [npu1]\n[npu1]\n^");
  EXPECT_EQ(compile_error("npu4"), "compiled");
}

TEST_F(XdnaSidecar, AnEmptyInstructionStreamIsRefused) {
  write("artifacts/vec_add_bf16.npu1.insts.bin", "");
  replace_in_sidecar("8a14d973d87a8ba4e633ac473b74ed0bbd1d774117dd11f5eb0b6225c52d2fca", sha256_hex(""));
  EXPECT_EQ(compile_error(), path("vec_add_bf16.xdna.toml") + ":11:16: error: the NPU instruction stream " +
                                 path("artifacts/vec_add_bf16.npu1.insts.bin") +
                                 " is empty: a run without it does nothing\n"
                                 "instructions = \"artifacts/vec_add_bf16.npu1.insts.bin\"\n               ^");
}

TEST_F(XdnaSidecar, AMissingSidecarIsRefusedAtTheSpec) {
  std::filesystem::remove(dir_ / "vec_add_bf16.xdna.toml");
  EXPECT_EQ(compile_error(), path("vec_add_bf16.yaml") +
                                 ":3:9: error: kernel 'vec_add_bf16' on xdna:npu1 needs its device artifacts (PDI or "
                                 "ELF, and the NPU instruction stream) named in the sidecar " +
                                 path("vec_add_bf16.xdna.toml") + ": cannot read: no such file or directory");
}

TEST_F(XdnaSidecar, UnknownKeysAndAnotherKernelAreLocatedErrors) {
  replace_in_sidecar("kernel = \"vec_add_bf16\"", "kernel = \"other\"\nlayout = 1");
  const std::string e = compile_error();
  EXPECT_NE(e.find(path("vec_add_bf16.xdna.toml") + ":5:1: error: the sidecar is for kernel 'other', not "
                                                     "'vec_add_bf16'"), std::string::npos) << e;
  EXPECT_NE(e.find(path("vec_add_bf16.xdna.toml") + ":6:1: error: unknown key 'layout' in xdna sidecar"),
            std::string::npos) << e;
}

TEST(XclbinWriter, EqualContentGivesEqualBytesAndUuidOtherContentAnother) {
  const xdna::XclbinInput in{"k", "npu1", "pdi", {1, 2, 3}, {0, 0, 0, 1}};
  const std::vector<uint8_t> a = xdna::write_xclbin(in), b = xdna::write_xclbin(in);
  EXPECT_EQ(a, b);
  xdna::XclbinInput other = in;
  other.instructions = {0, 0, 0, 2};
  Expected<xdna::XclbinSummary> sa = xdna::read_xclbin(a.data(), a.size());
  const std::vector<uint8_t> c = xdna::write_xclbin(other);
  Expected<xdna::XclbinSummary> sc = xdna::read_xclbin(c.data(), c.size());
  ASSERT_TRUE(sa.ok() && sc.ok());
  EXPECT_NE(sa->uuid, sc->uuid);
  EXPECT_EQ(sa->uuid[14], '8');   // RFC 9562 version 8: derived, not random
  EXPECT_EQ(xdna::xclbin_section(a, *sa, 16, "npu_insts"), in.instructions);
  EXPECT_EQ(xdna::xclbin_section(a, *sa, 18), in.image);
  EXPECT_EQ(xdna::render_xclbin_summary(*sa),
            "xclbin 2.13.0, 2920 bytes, uuid " + sa->uuid + ", platform amd:xdna:npu1:1\n"
            "  kernel k:k_1\n  1 memory banks, 4 connections\n"
            "  section MEM_TOPOLOGY 'mem_topology' at 736, 48 bytes\n"
            "  section IP_LAYOUT 'ip_layout' at 784, 88 bytes\n"
            "  section CONNECTIVITY 'connectivity' at 872, 52 bytes\n"
            "  section EMBEDDED_METADATA 'embedded_xml' at 928, 1502 bytes\n"
            "  section AIE_METADATA 'aie_metadata' at 2432, 467 bytes\n"
            "  section PDI 'aie_pdi' at 2904, 3 bytes\n"
            "  section USER_METADATA 'npu_insts' at 2912, 4 bytes\n");
}

TEST(XclbinReader, RefusesEachBadSeedOfTheFuzzCorpusWithItsReason) {
  const std::string dir = std::string(TSR_SOURCE_DIR) + "/tests/fuzz/xclbin_corpus/";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"empty.xclbin", "not an xclbin: 0 bytes, shorter than the 456-byte axlf header"},
      {"bad_magic.xclbin", "not an xclbin: bad magic (expected \"xclbin2\")"},
      {"length_mismatch.xclbin", "header length 3072 differs from the file size 3064"},
      {"num_sections_huge.xclbin", "4294967295 sections, over XRT's limit of 65536"},
      {"num_sections_past_file.xclbin", "200 section headers do not fit in 3064 bytes"},
      {"section_offset_past_end.xclbin", "section 5 (PDI) at offset 7160 size 86 ends past the file (3064 bytes)"},
      {"section_offset_size_overflow.xclbin",
       "section 5 (PDI) at offset 18446744073709551608 size 16 ends past the file (3064 bytes)"},
      {"section_overlaps_headers.xclbin", "section 3 (EMBEDDED_METADATA) at offset 100 overlaps the section headers"},
      {"section_name_no_nul.xclbin", "section 0 (MEM_TOPOLOGY): name is not NUL-terminated"},
      {"mem_topology_count_huge.xclbin",
       "MEM_TOPOLOGY declares 2147483647 records of 40 bytes, needing 85899345888, but is 48 bytes"},
      {"mem_topology_count_negative.xclbin", "MEM_TOPOLOGY has a negative count -1"},
      {"ip_layout_count_huge.xclbin",
       "IP_LAYOUT declares 2147483647 records of 80 bytes, needing 171798691768, but is 88 bytes"},
      {"ip_name_no_nul.xclbin", "IP_LAYOUT entry 0: name is not NUL-terminated"},
  };
  for (const auto& [file, why] : cases) {
    Expected<std::vector<uint8_t>> bytes = read_file_bytes(dir + file);
    ASSERT_TRUE(bytes.ok()) << file;
    Expected<xdna::XclbinSummary> s = xdna::read_xclbin(bytes->data(), bytes->size());
    ASSERT_FALSE(s.ok()) << file;
    EXPECT_EQ(s.error().message(), why) << file;
  }
}

}  // namespace
}  // namespace tsr
