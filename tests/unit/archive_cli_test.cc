// `tesserac inspect`, `merge` and `verify` on hostile archives: the exact
// message, naming the path once, exit 1, no crash, no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "archive/archive_writer.h"
#include "archive_mutation.h"
#include "archive_test_support.h"
#include "support/file_io.h"
#include "support/subprocess.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

class ArchiveCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("cli");
    good_ = path("good.tfat");
    ASSERT_TRUE(write_file_atomic(good_, *serialize_archive(testing::sample_contents())).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes the sample edited by `edit`, checksums resealed.
  std::string write_edited(const std::string& name, const std::function<void(testing::ArchiveEditor&)>& edit) {
    Expected<std::vector<uint8_t>> good = read_file_bytes(good_);
    testing::ArchiveEditor editor(*good);
    edit(editor);
    const std::string p = path(name);
    EXPECT_TRUE(write_file_atomic(p, editor.bytes()).ok());
    return p;
  }
  static ProcessResult tesserac(std::vector<std::string> args) {
    args.insert(args.begin(), TSR_BINARY_DIR "/tesserac");
    return run_process(args);
  }
  fs::path dir_;
  std::string good_;
};

TEST_F(ArchiveCli, CorruptKernelRecordsAreAnErrorInEveryReader) {
  // vadd's first binding gets dtype 0xee: the kernel fails its first-use check.
  const std::string bad = write_edited("bad.tfat", [](testing::ArchiveEditor& e) {
    e.record("BIND", testing::le(e.section("KERN"), 8 + 56 + 32, 4))[9] = 0xee;
  });
  const std::string expected = "tesserac: error: " + bad + ": kernel 'vadd': binding 'in0' has a bad dtype\n";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"inspect", bad}, {"inspect", "--json", bad}, {"verify", bad},
           {"merge", good_, bad, "-o", path("out.tfat")}, {"merge", bad, good_, "-o", path("out.tfat")}}) {
    ProcessResult r = tesserac(args);
    EXPECT_EQ(r.exit_code, 1) << args[0];
    EXPECT_EQ(r.output, expected) << args[0];
  }
  EXPECT_FALSE(fs::exists(path("out.tfat")));
}

// The CRC-32C of the changed blob was made to match, so only its SHA-256 is
// stale: merge must not copy (and so re-bless) that blob.
TEST_F(ArchiveCli, MergeRefusesABlobWithAStaleSha256) {
  const std::string stale = write_edited("stale.tfat", [](testing::ArchiveEditor& e) {
    const size_t var = 3;   // vadd x86:v1
    const uint64_t off = testing::le(e.section("VARS"), 8 + 112 * var + 48, 8);
    const uint64_t size = testing::le(e.section("VARS"), 8 + 112 * var + 56, 8);
    e.file()[off + 100] ^= 0x01;
    testing::put_le(e.record("VARS", var) + 104, tsr_crc32c(&e.file()[off], size), 4);
  });
  ProcessResult r = tesserac({"merge", good_, stale, "-o", path("out.tfat")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "tesserac: error: " + stale + ": blob of kernel 'vadd' variant x86:v1: sha256 mismatch\n");
  EXPECT_FALSE(fs::exists(path("out.tfat")));
  r = tesserac({"verify", stale});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "tesserac: error: " + stale + ": blob of kernel 'vadd' variant x86:v1: sha256 mismatch\n");
}

TEST_F(ArchiveCli, VerifyAndMergeNameThePathOnce) {
  const std::string identity = write_edited("identity.tfat", [](testing::ArchiveEditor& e) {
    e.set_string("KERN", 1, 8, std::string(64, 'G'));
  });
  ProcessResult r = tesserac({"verify", identity});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "tesserac: error: " + identity + ": kernel 'vadd': identity is not 64 lower-case hex digits\n");
  const std::string missing = path("missing.tfat");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"verify", missing}, {"merge", good_, missing, "-o", path("out.tfat")}}) {
    r = tesserac(args);
    EXPECT_EQ(r.exit_code, 1) << args[0];
    EXPECT_EQ(r.output.find(missing), r.output.rfind(missing)) << args[0] << ": " << r.output;
    EXPECT_EQ(r.output.rfind("tesserac: error: " + missing + ": ", 0), 0u) << r.output;
  }
  r = tesserac({"verify", good_});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, good_ + ": ok\n");
}

}  // namespace
}  // namespace tsr
