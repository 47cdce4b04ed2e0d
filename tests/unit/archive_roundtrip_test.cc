// Writer → stub reader → launch on x86; determinism and atomic writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "archive/archive_embed.h"
#include "archive/archive_inspect.h"
#include "archive/archive_merge.h"
#include "archive/archive_reader.h"
#include "support/file_io.h"
#include "archive/archive_writer.h"
#include "archive_mutation.h"
#include "archive_test_support.h"
#include "tesserart.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;
using testing::sample_contents;

std::vector<uint8_t> serialize_ok(const ArchiveContents& c) {
  Expected<std::vector<uint8_t>> bytes = serialize_archive(c);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(ArchiveRoundTrip, ReadBackEqualsCanonicalContents) {
  ArchiveContents input = sample_contents();
  ASSERT_FALSE(input.kernels[0].variants[0].bytes.empty()) << "cc could not build the test kernel";
  std::vector<uint8_t> bytes = serialize_ok(input);
  Expected<ArchiveContents> back = read_archive(bytes);
  ASSERT_TRUE(back.ok()) << back.error().message();
  Expected<ArchiveContents> canonical = canonicalize_archive(input);
  ASSERT_TRUE(canonical.ok());
  EXPECT_EQ(back->metadata, canonical->metadata);
  ASSERT_EQ(back->kernels.size(), 2u);
  EXPECT_EQ(back->kernels[0].name, "scale");   // sorted by name
  for (size_t i = 0; i < 2; ++i)
    EXPECT_TRUE(same_kernel(back->kernels[i], canonical->kernels[i])) << back->kernels[i].name;
  EXPECT_EQ(back->kernels[1].variants[0].target.str(), "cuda:ptx");   // sorted by kind, arch
  EXPECT_TRUE(verify_archive(bytes).ok());
}

TEST(ArchiveRoundTrip, LaunchesOnX86ThroughTheStub) {
  fs::path dir = testing::make_temp_dir("rt");
  const std::string path = (dir / "k.tfat").string();
  ASSERT_TRUE(write_archive(sample_contents(), path).ok());
  char message[256] = "";
  tsr_open_options options{0, message, sizeof message};
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_file(path.c_str(), &options, &a), TSR_OK) << message;

  const int level = tsr_x86_level();
  ASSERT_GE(level, 1);
  tsr_select_options only_x86{"x86", 0};
  tsr_kernel* k = nullptr;
  ASSERT_EQ(tsr_kernel_load(a, "vadd", &only_x86, &k), TSR_OK) << tsr_archive_last_message(a);
  std::vector<float> x(1000), y(1000), out(1000, -1.f);
  for (int i = 0; i < 1000; ++i) { x[i] = float(i); y[i] = 0.5f; }
  tsr_buffer_arg args[3] = {{x.data(), x.size() * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {y.data(), y.size() * 4, TSR_DTYPE_F32, TSR_ROLE_IN},
                            {out.data(), out.size() * 4, TSR_DTYPE_F32, TSR_ROLE_OUT}};
  int64_t n = 1000;
  tsr_selection ran{};
  ASSERT_EQ(tsr_kernel_launch(k, args, 3, &n, 1, &ran), TSR_OK) << tsr_kernel_last_message(k);
  const int expect_level = std::min(level, 3);   // the archive has v1..v3
  EXPECT_STREQ(ran.target_kind, "x86");
  EXPECT_EQ(std::string(ran.arch), "v" + std::to_string(expect_level));
  EXPECT_STREQ(ran.route, "memfd+dlopen");
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(out[i], x[i] + expect_level * 0.5f) << i;
  tsr_kernel_unload(k);

  // A pretended v2 machine gets the v2 variant.
  tsr_select_options v2{"x86", 2};
  ASSERT_EQ(tsr_kernel_load(a, "vadd", &v2, &k), TSR_OK);
  ASSERT_EQ(tsr_kernel_launch(k, args, 3, &n, 1, &ran), TSR_OK);
  EXPECT_STREQ(ran.arch, "v2");
  EXPECT_EQ(out[10], 11.f);
  tsr_kernel_unload(k);
  tsr_archive_close(a);
  fs::remove_all(dir);
}

TEST(ArchiveRoundTrip, SameContentsInTwoDirectoriesAreByteIdentical) {
  ArchiveContents c = sample_contents();
  ArchiveContents shuffled = c;
  std::reverse(shuffled.kernels.begin(), shuffled.kernels.end());
  for (ArchiveKernel& k : shuffled.kernels) {
    std::reverse(k.variants.begin(), k.variants.end());
    std::reverse(k.verdicts.begin(), k.verdicts.end());
  }
  fs::path d1 = testing::make_temp_dir("det1"), d2 = testing::make_temp_dir("det2");
  ASSERT_TRUE(write_archive(c, (d1 / "out.tfat").string()).ok());
  ASSERT_TRUE(write_archive(shuffled, (d2 / "out.tfat").string()).ok());
  Expected<std::vector<uint8_t>> b1 = read_file_bytes((d1 / "out.tfat").string());
  Expected<std::vector<uint8_t>> b2 = read_file_bytes((d2 / "out.tfat").string());
  ASSERT_TRUE(b1.ok() && b2.ok());
  EXPECT_GT(b1->size(), 4096u);
  EXPECT_TRUE(*b1 == *b2);
  fs::remove_all(d1);
  fs::remove_all(d2);
}

TEST(ArchiveRoundTrip, BlobsArePageAligned) {
  std::vector<uint8_t> bytes = serialize_ok(sample_contents());
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(bytes.data(), bytes.size(), nullptr, &a), TSR_OK);
  tsr_archive_info info;
  ASSERT_EQ(tsr_archive_get_info(a, &info), TSR_OK);
  EXPECT_EQ(info.major, 2);
  EXPECT_EQ(info.file_size, bytes.size());
  size_t blobs = 0;
  for (size_t k = 0; k < info.kernel_count; ++k) {
    tsr_kernel_info ki;
    ASSERT_EQ(tsr_archive_kernel_at(a, k, &ki), TSR_OK);
    for (size_t v = 0; v < ki.variant_count; ++v, ++blobs) {
      tsr_variant_info vi;
      ASSERT_EQ(tsr_kernel_variant_at(a, k, v, &vi), TSR_OK);
      EXPECT_EQ(vi.offset % 4096, 0u);
    }
  }
  EXPECT_EQ(blobs, 6u);
  tsr_archive_close(a);
}

TEST(ArchiveWriter, AtomicWriteLeavesOnlyTheArchive) {
  fs::path dir = testing::make_temp_dir("atomic");
  const std::string path = (dir / "k.tfat").string();
  { std::ofstream(path) << "old contents"; }
  ASSERT_TRUE(write_archive(sample_contents(), path).ok());
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) { ++entries; EXPECT_EQ(e.path().filename(), "k.tfat"); }
  EXPECT_EQ(entries, 1u);
  EXPECT_TRUE(verify_archive_file(path).ok());
  // A destination whose directory is missing fails without writing anything.
  Status s = write_archive(sample_contents(), (dir / "missing" / "k.tfat").string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("cannot create a temporary file"), std::string::npos) << s.error().message();
  // Invalid contents never touch the destination.
  ArchiveContents bad = sample_contents();
  bad.kernels[0].identity = "xyz";
  ASSERT_FALSE(write_archive(bad, path).ok());
  EXPECT_TRUE(verify_archive_file(path).ok());
  fs::remove_all(dir);
}

TEST(ArchiveReader, FileErrorsNameThePath) {
  fs::path dir = testing::make_temp_dir("rdpath");
  const std::string path = (dir / "k.tfat").string();
  ASSERT_TRUE(write_archive(sample_contents(), path).ok());
  Expected<std::vector<uint8_t>> bytes = read_file_bytes(path);
  ASSERT_TRUE(bytes.ok());
  (*bytes)[8] = 9;    // major version 9
  (*bytes)[10] = 0;   // minor 0: version 9.0
  ASSERT_TRUE(write_file_atomic(path, *bytes).ok());
  Expected<ArchiveContents> c = read_archive_file(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), path + ": unsupported archive format version 9.0 (this reader reads 2.x)");
  Status v = verify_archive_file(path);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message(), c.error().message());
  fs::remove_all(dir);
}

TEST(ArchiveWriter, RejectsInvalidContentsWithAMessage) {
  auto message = [](ArchiveContents c) {
    Expected<std::vector<uint8_t>> r = serialize_archive(c);
    return r.ok() ? std::string("accepted") : r.error().message();
  };
  ArchiveContents c = sample_contents();
  c.kernels.push_back(c.kernels[0]);
  EXPECT_EQ(message(c), "kernel 'vadd' appears twice");
  c = sample_contents();
  c.kernels[1].name = "9bad";
  EXPECT_EQ(message(c), "kernel '9bad': name is not a C identifier");
  c = sample_contents();
  c.kernels[0].variants[3].kind = "elf";
  EXPECT_EQ(message(c), "kernel 'vadd' variant cuda:sm_90: unknown artifact kind 'elf'");
  c = sample_contents();
  c.kernels[0].variants[3].toolchain = "/usr/bin/ptxas";
  EXPECT_EQ(message(c), "kernel 'vadd' variant cuda:sm_90: toolchain is an absolute path");
  c = sample_contents();
  c.kernels[0].abi.bindings[0].shape[0].name = "m";
  EXPECT_EQ(message(c), "kernel 'vadd': shape of 'in0' uses 'm', which is not a runtime scalar");
  c = sample_contents();
  c.kernels[0].variants.push_back(c.kernels[0].variants[0]);
  EXPECT_EQ(message(c), "kernel 'vadd' variant x86:v3: target appears twice");
  c = sample_contents();
  c.metadata["a=b"] = "x";
  EXPECT_EQ(message(c), "archive metadata 'a=b': key contains '='");
  // Past what the format can represent, the rules are the stub validator's,
  // run on the bytes: the writer never emits what a reader would refuse.
  c = sample_contents();
  c.kernels[0].identity = "xyz";
  EXPECT_EQ(message(c), "kernel 'vadd': identity is not 64 lower-case hex digits");
  c = sample_contents();
  c.kernels[0].abi.bindings[1].name = "in0";
  EXPECT_EQ(message(c), "kernel 'vadd': binding 'in0' appears twice");
  c = sample_contents();
  c.kernels[0].abi.bindings[3].shape = {Dim{4, ""}};
  EXPECT_EQ(message(c), "kernel 'vadd': scalar 'n' has a shape");
  c = sample_contents();
  c.kernels[0].abi.bindings[0].shape[0] = Dim{-3, ""};
  EXPECT_EQ(message(c), "kernel 'vadd': binding 'in0' dim 0 is invalid");
  c = sample_contents();
  std::swap(c.kernels[0].abi.bindings[1], c.kernels[0].abi.bindings[2]);
  EXPECT_EQ(message(c), "kernel 'vadd': binding 'in1' is out of order (inputs, outputs, then scalars)");
  c = sample_contents();
  c.kernels[0].variants[3].target.arch = "";
  EXPECT_EQ(message(c), "kernel 'vadd': variant 0 has a bad target kind or arch");
  c = sample_contents();
  c.kernels[0].verdicts[1].reason = "/dev/nvidia0 missing";
  EXPECT_EQ(message(c), "kernel 'vadd' verdict cuda:sm_90: reason is an absolute path");
  c = sample_contents();
  c.kernels[0].variants[0].metadata["x86.flags"] = "-O2\n-g";
  EXPECT_EQ(message(c), "kernel 'vadd' variant x86:v3 metadata 'x86.flags': value contains a newline");
  c = sample_contents();
  c.kernels[0].family = std::string("elem\0wise", 9);
  EXPECT_EQ(message(c), std::string("kernel 'vadd': string 'elem\0wise' contains a NUL byte", 53));
}

TEST(ArchiveInspect, DescribesEveryRegion) {
  std::vector<uint8_t> bytes = serialize_ok(sample_contents());
  Expected<std::string> json = inspect_json(bytes);
  ASSERT_TRUE(json.ok());
  for (const char* needle : {"\"format\": \"2.3\"", "\"tesserac.version\": \"0.1.0\"", "\"name\": \"vadd\"",
                             "\"target\": \"cuda:sm_90\"", "\"cuda.grid\": \"cdiv(n,256),1,1\"",
                             "\"verdict\": \"PASS\"", "\"reason\": \"no CUDA device\"", "\"shape\": [\n            4,\n            \"M\"\n          ]"})
    EXPECT_NE(json->find(needle), std::string::npos) << needle << "\n" << *json;
  Expected<std::string> again = inspect_json(bytes);
  EXPECT_EQ(*json, *again);
  EXPECT_FALSE(inspect_json(std::vector<uint8_t>(10, 0)).ok());
}

// One table of artifact kind names (the format's, archive_contents.cc); a
// kind from a newer minor version is shown as "unknown".
TEST(ArchiveInspect, NamesArtifactKindsAndUnknownOnes) {
  const std::vector<uint8_t>& bytes = testing::sample_bytes();
  Expected<std::string> json = inspect_json(bytes);
  ASSERT_TRUE(json.ok());
  for (const char* needle : {"\"artifact_kind\": \"shared_object\"", "\"artifact_kind\": \"cubin\"",
                             "\"artifact_kind\": \"ptx\""})
    EXPECT_NE(json->find(needle), std::string::npos) << needle;
  EXPECT_EQ(json->find("\"artifact_kind\": \"unknown\""), std::string::npos);
  testing::ArchiveEditor edit(bytes);
  edit.record("VARS", 0)[4] = 9;
  json = inspect_json(edit.bytes());
  ASSERT_TRUE(json.ok()) << json.error().message();
  EXPECT_NE(json->find("\"artifact_kind\": \"unknown\""), std::string::npos) << *json;
}

TEST(ArchiveEmbed, GeneratedSourceOpensThroughTheStub) {
  std::vector<uint8_t> bytes = serialize_ok(sample_contents());
  Expected<std::string> src = embed_as_c_source(bytes, "kernels_tfat");
  ASSERT_TRUE(src.ok());
  EXPECT_FALSE(embed_as_c_source(bytes, "1x").ok());
  fs::path dir = testing::make_temp_dir("embed");
  std::ofstream(dir / "data.c") << *src;
  std::ofstream(dir / "main.c") << "#include <stddef.h>\n#include \"tesserart.h\"\n"
      "extern const unsigned char kernels_tfat[]; extern const size_t kernels_tfat_size;\n"
      "int main(void) { tsr_archive* a; size_t k;\n"
      "  if (tsr_archive_open_memory(kernels_tfat, kernels_tfat_size, NULL, &a)) return 2;\n"
      "  int rc = tsr_archive_find_kernel(a, \"vadd\", &k) == TSR_OK && k == 1 ? 0 : 3;\n"
      "  tsr_archive_close(a); return rc; }\n";
  ProcessResult build = run_process({"cc", "-std=c11", "-I" TSR_SOURCE_DIR "/runtime-stub/include",
                                     "-o", (dir / "embed").string(), (dir / "main.c").string(),
                                     (dir / "data.c").string(), TSR_BINARY_DIR "/libtesserart.a", "-ldl"});
  ASSERT_EQ(build.exit_code, 0) << build.output;
  EXPECT_EQ(run_process({(dir / "embed").string()}).exit_code, 0);
  fs::remove_all(dir);
}

TEST(ArchiveMerge, UnionCollapsesDuplicatesAndNamesConflicts) {
  ArchiveContents full = sample_contents();
  ArchiveContents left = full, right = full;
  left.kernels.pop_back();                       // vadd only ... with all variants
  right.kernels.erase(right.kernels.begin());    // scale only
  right.kernels.push_back(full.kernels[0]);      // and vadd again, identical
  Expected<ArchiveContents> merged = merge_archives({{"a.tfat", left}, {"b.tfat", right}});
  ASSERT_TRUE(merged.ok()) << merged.error().message();
  EXPECT_EQ(serialize_ok(*merged), serialize_ok(full));

  ArchiveContents other = full;
  other.kernels[0].variants[0].bytes.push_back(0);
  merged = merge_archives({{"a.tfat", full}, {"b.tfat", other}});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().message(),
            "merge conflict: kernel 'vadd' variant x86:v3 differs between 'a.tfat' and 'b.tfat'");
  other = full;
  other.kernels[1].identity = std::string(64, 'e');
  merged = merge_archives({{"a.tfat", full}, {"b.tfat", other}});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().message(), "merge conflict: kernel 'scale' identity differs between 'a.tfat' and 'b.tfat'");
  other = full;
  other.metadata["tesserac.version"] = "0.2.0";
  merged = merge_archives({{"a.tfat", full}, {"b.tfat", other}});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().message(), "merge conflict: metadata 'tesserac.version' differs between 'a.tfat' and 'b.tfat'");
}

}  // namespace
}  // namespace tsr
