// The validator enforces every rule docs/archive-format.md states: each
// mutation below breaks one rule of a valid archive (checksums resealed, so
// the rule itself is what catches it) and must give exactly this status and
// message, at the stage the format document names (open, a kernel's first
// use, or verify), and the same message from every compiler path that reads
// archives (verify, read_archive for merge, inspect).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "archive/archive_inspect.h"
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive_mutation.h"
#include "archive_test_support.h"
#include "tesserart.h"

namespace tsr {
namespace {

using testing::ArchiveEditor;
using testing::le;
using testing::put_le;

// Sample layout (kernels sorted by name): KERN 0 scale, 1 vadd; BIND 0-2
// scale x, y, M, 3-6 vadd in0, in1, out, n; DIMS 0-3 scale, 4-6 vadd; VARS 0
// scale cuda:sm_90, 1-5 vadd cuda:ptx, cuda:sm_90, x86:v1, x86:v2, x86:v3;
// VMET 9 x86:v1's x86.flags; VERD 0-1 vadd cuda:sm_90, x86:v3; AMET 0
// build.profile, 1 tesserac.version.
using testing::sample_bytes;

enum class Stage { open, first_use, verify };

struct Case {
  std::string name;
  std::function<void(ArchiveEditor&)> edit;
  Stage stage;
  tsr_status status;
  std::string message;
  size_t kernel = 1;   // first_use: the kernel whose records break the rule
};

std::string blob_range(const std::vector<uint8_t>& b, size_t var, uint64_t off_delta = 0) {
  ArchiveEditor e(b);
  const uint8_t* r = e.record("VARS", var);
  uint64_t off = 0, size = 0;
  for (int i = 7; i >= 0; --i) { off = off << 8 | r[48 + i]; size = size << 8 | r[56 + i]; }
  return "[" + std::to_string(off + off_delta) + ", +" + std::to_string(size) + ")";
}

void check(const Case& c, const std::vector<uint8_t>& base = sample_bytes()) {
  SCOPED_TRACE(c.name);
  ArchiveEditor editor(base);
  c.edit(editor);
  const std::vector<uint8_t> b = editor.bytes();
  ASSERT_FALSE(b.empty());
  char msg[256] = "";
  tsr_open_options options{0, msg, sizeof msg};
  tsr_archive* a = nullptr;
  tsr_status opened = tsr_archive_open_memory(b.data(), b.size(), &options, &a);
  if (c.stage == Stage::open) {
    EXPECT_EQ(opened, c.status);
    EXPECT_EQ(std::string(msg), c.message);
  } else {
    ASSERT_EQ(opened, TSR_OK) << msg;
    tsr_kernel_info ki;
    for (size_t k = 0; k < 2; ++k) {
      const bool bad = c.stage == Stage::first_use && k == c.kernel;
      EXPECT_EQ(tsr_archive_kernel_at(a, k, &ki), bad ? TSR_ERROR_CORRUPT : TSR_OK) << k;
    }
    if (c.stage == Stage::first_use) {
      tsr_selection sel;
      EXPECT_EQ(tsr_kernel_select(a, c.kernel, nullptr, &sel), TSR_ERROR_CORRUPT);
      EXPECT_EQ(std::string(tsr_archive_last_message(a)), c.message);
    }
    EXPECT_EQ(tsr_archive_verify(a, msg, sizeof msg), c.status);
    EXPECT_EQ(std::string(msg), c.message);
    tsr_archive_close(a);
    // TSR_OPEN_VERIFY_BLOBS runs the same validator at open.
    tsr_open_options full{TSR_OPEN_VERIFY_BLOBS, msg, sizeof msg};
    EXPECT_EQ(tsr_archive_open_memory(b.data(), b.size(), &full, &a), c.status);
    EXPECT_EQ(a, nullptr);
    EXPECT_EQ(std::string(msg), c.message);
  }
  Status verified = verify_archive(b);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().message(), c.message);
  Expected<ArchiveContents> read = read_archive(b);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), c.message);
  Expected<std::string> inspected = inspect_json(b);
  ASSERT_FALSE(inspected.ok());
  EXPECT_EQ(inspected.error().message(), c.message);
}

TEST(ArchiveValidator, TheUneditedSampleIsValid) {
  ArchiveEditor editor(sample_bytes());
  EXPECT_EQ(editor.bytes(), sample_bytes());
  EXPECT_TRUE(verify_archive(sample_bytes()).ok());
}

TEST(ArchiveValidator, RulesCheckedAtOpen) {
  const std::vector<Case> cases = {
      {"index_offset is header_size", [](ArchiveEditor& e) { put_le(e.file(), 24, 136, 8); },
       Stage::open, TSR_ERROR_CORRUPT, "archive header layout is invalid"},
      {"a table has no bytes after its records", [](ArchiveEditor& e) { e.section("VERD").resize(e.section("VERD").size() + 8); },
       Stage::open, TSR_ERROR_CORRUPT, "section VERD: 8 bytes after its 2 records"},
      {"no '=' in a metadata key", [](ArchiveEditor& e) { e.set_string("AMET", 0, 0, "build=profile"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'build=profile': key contains '='"},
      {"no newline in a metadata key", [](ArchiveEditor& e) { e.set_string("AMET", 0, 0, "build\nprofile"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'build\\x0aprofile': key contains a newline"},
      {"no newline in a metadata value", [](ArchiveEditor& e) { e.set_string("AMET", 1, 8, "0.1\n"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'tesserac.version': value contains a newline"},
      {"metadata keys non-empty", [](ArchiveEditor& e) { e.set_string("AMET", 0, 0, ""); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 0: empty key"},
      {"metadata keys unique", [](ArchiveEditor& e) { e.copy_ref("AMET", 0, 1, 0); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'build.profile': key appears twice"},
      {"metadata keys sorted", [](ArchiveEditor& e) { e.set_string("AMET", 0, 0, "zz"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'tesserac.version': keys not sorted"},
      {"strings are UTF-8", [](ArchiveEditor& e) { e.set_string("AMET", 0, 8, "t\xffst"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'build.profile': value is not UTF-8"},
      {"no overlong UTF-8", [](ArchiveEditor& e) { e.set_string("AMET", 0, 0, "\xc0\xaf"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 0: key is not UTF-8"},
      {"no absolute paths", [](ArchiveEditor& e) { e.set_string("AMET", 0, 8, "/home/me"); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'build.profile': value is an absolute path"},
      {"string references in STRS", [](ArchiveEditor& e) { put_le(e.record("AMET", 1) + 12, 1u << 30, 4); },
       Stage::open, TSR_ERROR_CORRUPT, "archive metadata 'tesserac.version': value is not a valid string reference"},
      {"kernel names unique", [](ArchiveEditor& e) { e.copy_ref("KERN", 1, 0, 0); },
       Stage::open, TSR_ERROR_CORRUPT, "kernel 'vadd' appears twice"},
      {"kernel names sorted", [](ArchiveEditor& e) { e.set_string("KERN", 0, 0, "zz\x1b"); },
       Stage::open, TSR_ERROR_CORRUPT, "kernel 'vadd' is out of order (names are sorted)"},
  };
  for (const Case& c : cases) check(c);
}

TEST(ArchiveValidator, KernelRulesCheckedOnFirstUse) {
  const std::string no_ident = "kernel 'vadd': identity is not 64 lower-case hex digits";
  const std::vector<Case> cases = {
      {"kernel name a C identifier", [](ArchiveEditor& e) { e.set_string("KERN", 1, 0, "va-d"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'va-d': name is not a C identifier"},
      {"kernel name quoted in the message", [](ArchiveEditor& e) { e.set_string("KERN", 1, 0, "v\x1b[2J'"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'v\\x1b[2J\\x27': name is not a C identifier"},
      {"identity hex", [](ArchiveEditor& e) { e.set_string("KERN", 1, 8, std::string(63, '0') + "g"); },
       Stage::first_use, TSR_ERROR_CORRUPT, no_ident},
      {"identity lower-case", [](ArchiveEditor& e) { e.set_string("KERN", 1, 8, std::string(64, 'F')); },
       Stage::first_use, TSR_ERROR_CORRUPT, no_ident},
      {"identity 64 digits", [](ArchiveEditor& e) { e.set_string("KERN", 1, 8, std::string(66, 'f')); },
       Stage::first_use, TSR_ERROR_CORRUPT, no_ident},
      {"family a valid string", [](ArchiveEditor& e) { e.set_string("KERN", 0, 16, "/rowwise"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'scale': family is an absolute path", 0},
      {"storage dtype", [](ArchiveEditor& e) { e.set_string("KERN", 0, 24, "i64"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'scale': storage dtype is not f32, f16 or bf16", 0},
      {"binding names C identifiers", [](ArchiveEditor& e) { e.set_string("BIND", 4, 0, "in 1"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 1 name 'in 1' is not a C identifier"},
      {"binding names unique", [](ArchiveEditor& e) { e.copy_ref("BIND", 3, 4, 0); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'in0' appears twice"},
      {"scalar names unique among all bindings", [](ArchiveEditor& e) { e.copy_ref("BIND", 5, 6, 0); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'out' appears twice"},
      {"roles 0..2", [](ArchiveEditor& e) { e.record("BIND", 3)[8] = 7; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'in0' has role 7"},
      {"roles in order", [](ArchiveEditor& e) { e.record("BIND", 3)[8] = 1; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'in1' is out of order (inputs, outputs, then scalars)"},
      {"buffer dtypes 1..3", [](ArchiveEditor& e) { e.record("BIND", 3)[9] = 4; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'in0' has a bad dtype"},
      {"scalar dtype 4", [](ArchiveEditor& e) { e.record("BIND", 6)[9] = 1; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'n' has a bad dtype"},
      {"dim kind 0 or 1", [](ArchiveEditor& e) { e.record("DIMS", 4)[0] = 2; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': binding 'in0' dim 0 is invalid"},
      {"static extents >= 0", [](ArchiveEditor& e) { put_le(e.record("DIMS", 0) + 8, uint64_t(-1), 8); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'scale': binding 'x' dim 0 is invalid", 0},
      {"scalar_index names a scalar", [](ArchiveEditor& e) { put_le(e.record("DIMS", 1) + 4, 1, 4); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'scale': binding 'x' dim 1 is invalid", 0},
      {"variant kernel index", [](ArchiveEditor& e) { put_le(e.record("VARS", 1), 0, 4); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': variant 0 has a bad kernel index"},
      {"target kind a name", [](ArchiveEditor& e) { e.set_string("VARS", 3, 8, "x:86"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': variant 2 has a bad target kind or arch"},
      {"arch non-empty", [](ArchiveEditor& e) { e.set_string("VARS", 3, 16, ""); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': variant 2 has a bad target kind or arch"},
      {"artifact kind not 0", [](ArchiveEditor& e) { e.record("VARS", 1)[4] = 0; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant cuda:ptx: artifact kind 0 is not a kind"},
      {"entry UTF-8", [](ArchiveEditor& e) { e.set_string("VARS", 3, 24, "\xed\xa0\x80"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1: entry is not UTF-8"},
      {"key in STRS", [](ArchiveEditor& e) { put_le(e.record("VARS", 3) + 36, 1u << 30, 4); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1: key is not a valid string reference"},
      {"toolchain no absolute path", [](ArchiveEditor& e) { e.set_string("VARS", 3, 40, "/usr/bin/cc"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1: toolchain is an absolute path"},
      {"targets unique", [](ArchiveEditor& e) { e.copy_ref("VARS", 3, 4, 16); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1: target appears twice"},
      {"targets sorted", [](ArchiveEditor& e) { e.set_string("VARS", 3, 16, "v2"); e.set_string("VARS", 4, 16, "v1"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1: variants not sorted by target"},
      {"blob offsets aligned", [](ArchiveEditor& e) { put_le(e.record("VARS", 1) + 48, le(e.section("VARS"), 8 + 112 + 48, 8) + 8, 8); },
       Stage::first_use, TSR_ERROR_CORRUPT,
       "kernel 'vadd' variant cuda:ptx: blob range " + blob_range(sample_bytes(), 1, 8) + " is invalid"},
      {"variant metadata key without '='", [](ArchiveEditor& e) { e.set_string("VMET", 9, 0, "x86=flags"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1 metadata 'x86=flags': key contains '='"},
      {"variant metadata value without newline", [](ArchiveEditor& e) { e.set_string("VMET", 9, 8, "-O2\n-g"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant x86:v1 metadata 'x86.flags': value contains a newline"},
      {"variant metadata sorted", [](ArchiveEditor& e) { e.set_string("VMET", 3, 0, "zz"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' variant cuda:ptx metadata 'cuda.grid': keys not sorted"},
      {"verdict target a name", [](ArchiveEditor& e) { e.set_string("VERD", 0, 0, ""); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': verdict 0 has a bad target kind or arch"},
      {"verdict reason no absolute path", [](ArchiveEditor& e) { e.set_string("VERD", 0, 64, "/dev/nvidia0 missing"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' verdict cuda:sm_90: reason is an absolute path"},
      {"verdict targets unique", [](ArchiveEditor& e) { e.copy_ref("VERD", 0, 1, 0); e.copy_ref("VERD", 0, 1, 8); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' verdict cuda:sm_90: target appears twice"},
      {"verdict targets sorted", [](ArchiveEditor& e) { e.set_string("VERD", 0, 0, "y86"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' verdict x86:v3: verdicts not sorted by target"},
  };
  for (const Case& c : cases) check(c);
}

// Receipts (format 2.1, RCPT): sample_with_receipts() has RCPT 0 scale
// cuda:sm_90, 1 vadd x86:v1, 2 and 3 vadd x86:v3 (bytes "...A" < "...B").
const std::vector<uint8_t>& receipt_sample_bytes() {
  static const std::vector<uint8_t> bytes = *serialize_archive(testing::sample_with_receipts());
  return bytes;
}

TEST(ArchiveValidator, ReceiptRules) {
  const std::string v1 = "kernel 'vadd' receipt x86:v1: ";
  const std::vector<Case> cases = {
      {"RCPT records at least 64 bytes", [](ArchiveEditor& e) { put_le(e.section("RCPT").data(), 56, 4); },
       Stage::open, TSR_ERROR_CORRUPT, "section RCPT: record size 56 < 64"},
      {"RCPT once", [](ArchiveEditor& e) { e.add_section("RCPT", {64, 0, 0, 0, 0, 0, 0, 0}); },
       Stage::open, TSR_ERROR_CORRUPT, "index: duplicate section RCPT"},
      {"receipt kernel index in range", [](ArchiveEditor& e) { put_le(e.record("RCPT", 1), 2, 4); },
       Stage::open, TSR_ERROR_CORRUPT, "receipt 1 has a bad kernel index"},
      {"receipts sorted by kernel", [](ArchiveEditor& e) { put_le(e.record("RCPT", 3), 0, 4); },
       Stage::open, TSR_ERROR_CORRUPT, "receipt 3 has a bad kernel index"},
      {"receipt target a name", [](ArchiveEditor& e) { e.set_string("RCPT", 1, 8, "x:86"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd': receipt 0 has a bad target kind or arch"},
      {"receipt text UTF-8", [](ArchiveEditor& e) { e.set_string("RCPT", 1, 56, "format = 1 # \xff"); },
       Stage::first_use, TSR_ERROR_CORRUPT, v1 + "text is not UTF-8"},
      {"receipt text in STRS", [](ArchiveEditor& e) { put_le(e.record("RCPT", 1) + 56, 1u << 30, 4); },
       Stage::first_use, TSR_ERROR_CORRUPT, v1 + "text is not a valid string reference"},
      {"receipt text not empty", [](ArchiveEditor& e) { e.set_string("RCPT", 1, 56, ""); },
       Stage::first_use, TSR_ERROR_CORRUPT, v1 + "size 0 is not in 1..65536"},
      {"receipt binds to a variant of its target", [](ArchiveEditor& e) { e.set_string("RCPT", 1, 16, "v2x"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' receipt x86:v2x: the kernel has no variant of that target"},
      {"receipt binds to the variant's blob hash", [](ArchiveEditor& e) { e.record("RCPT", 1)[24 + 31] ^= 0x01; },
       Stage::first_use, TSR_ERROR_CORRUPT, v1 + "artifact sha256 is not the variant's"},
      {"receipt hash of another kernel's variant", [](ArchiveEditor& e) { e.record("RCPT", 0)[24] ^= 0x80; },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'scale' receipt cuda:sm_90: artifact sha256 is not the variant's", 0},
      {"receipts unique", [](ArchiveEditor& e) { e.copy_ref("RCPT", 2, 3, 56); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' receipt x86:v3: receipt appears twice"},
      {"receipts sorted by bytes", [](ArchiveEditor& e) { e.set_string("RCPT", 2, 56, "zz"); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' receipt x86:v3: receipts not sorted by target and bytes"},
      {"receipts sorted by target",   // records 1 and 2 swapped: each still binds to its variant
       [](ArchiveEditor& e) { std::swap_ranges(e.record("RCPT", 1), e.record("RCPT", 1) + 64, e.record("RCPT", 2)); },
       Stage::first_use, TSR_ERROR_CORRUPT, "kernel 'vadd' receipt x86:v1: receipts not sorted by target and bytes"},
  };
  for (const Case& c : cases) check(c, receipt_sample_bytes());
}

// The size bound needs an index larger than the editor can reseal in place:
// the writer runs the same validator on what it wrote and returns its message.
TEST(ArchiveValidator, ReceiptSizeBounded) {
  ArchiveContents c = testing::sample_with_receipts();
  c.kernels[0].receipts.resize(1);
  c.kernels[0].receipts[0].bytes = std::string(65536, '#');
  Expected<std::vector<uint8_t>> at_limit = serialize_archive(c);
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().message();
  c.kernels[0].receipts[0].bytes += "#";
  Expected<std::vector<uint8_t>> over = serialize_archive(c);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message(), "kernel 'vadd' receipt x86:v3: size 65537 is not in 1..65536");
}

// The offset of blob `var` in the file.
size_t blob_at(const std::vector<uint8_t>& b, size_t var) {
  ArchiveEditor e(b);
  return le(e.section("VARS"), 8 + 112 * var + 48, 8);
}

TEST(ArchiveValidator, ArchiveRulesCheckedByVerify) {
  const std::vector<uint8_t>& good = sample_bytes();
  const size_t v1 = blob_at(good, 3);
  const std::vector<Case> cases = {
      {"section tags printable", [](ArchiveEditor& e) { e.add_section(std::string("R\x01PT", 4), {1, 2, 3}); },
       Stage::verify, TSR_ERROR_CORRUPT, "index: section at " + std::to_string([&] {
         size_t end = 0;
         for (const auto& [tag, range] : testing::section_ranges(good)) end = range.second;
         return (end + 7) / 8 * 8 - le(good, 24, 8);
       }()) + " has a tag that is not printable ASCII"},
      {"section tags unique", [](ArchiveEditor& e) { e.add_section("NEWS", {}); e.add_section("NEWS", {}); },
       Stage::verify, TSR_ERROR_CORRUPT, "index: duplicate section NEWS"},
      {"STRS ends with NUL", [](ArchiveEditor& e) { e.section("STRS").push_back('x'); },
       Stage::verify, TSR_ERROR_CORRUPT, "section STRS: does not end with a NUL byte"},
      {"blobs do not overlap across kernels",
       [](ArchiveEditor& e) { std::copy_n(e.record("VARS", 0) + 48, 8, e.record("VARS", 1) + 48); },
       Stage::verify, TSR_ERROR_CORRUPT,
       "kernel 'vadd' variant cuda:ptx: blob range [" + std::to_string(blob_at(good, 0)) + ", +" +
           std::to_string(le(ArchiveEditor(good).section("VARS"), 8 + 112 + 56, 8)) + ") overlaps the blob before it"},
      {"blob SHA-256 (CRC-32C made to match)",
       [v1](ArchiveEditor& e) {
         e.file()[v1 + 100] ^= 0x01;
         const uint64_t size = le(e.section("VARS"), 8 + 112 * 3 + 56, 8);
         put_le(e.record("VARS", 3) + 104, tsr_crc32c(&e.file()[v1], size), 4);
       },
       Stage::verify, TSR_ERROR_CHECKSUM, "blob of kernel 'vadd' variant x86:v1: sha256 mismatch"},
      {"blob CRC-32C (SHA-256 intact)", [](ArchiveEditor& e) { e.record("VARS", 3)[104] ^= 0x01; },
       Stage::verify, TSR_ERROR_CHECKSUM, "blob of kernel 'vadd' variant x86:v1: crc32c mismatch"},
  };
  for (const Case& c : cases) check(c);
}

TEST(ArchiveValidator, NonzeroPaddingInTheIndexFailsVerify) {
  ArchiveEditor e(sample_bytes());
  e.add_section("NEWS", {1, 2, 3});
  std::vector<uint8_t> b = e.bytes();
  const auto ranges = testing::section_ranges(b);
  b[ranges.back().second.second + 1] = 0x5a;   // inside NEWS's padding to 8
  testing::reseal(b);
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  char msg[256];
  EXPECT_EQ(tsr_archive_verify(a, msg, sizeof msg), TSR_ERROR_CORRUPT);
  EXPECT_STREQ(msg, "index: nonzero padding after section NEWS");
  tsr_archive_close(a);
}

// A blob whose SHA-256 is stale but whose CRC-32C was made to match passes a
// first use; verify, and so every compiler reader, still refuses it.
TEST(ArchiveValidator, StaleSha256PassesFirstUseButNotTheCompilersReaders) {
  ArchiveEditor e(sample_bytes());
  const size_t v1 = blob_at(sample_bytes(), 3);
  e.file()[v1 + 100] ^= 0x01;
  const uint64_t size = le(e.section("VARS"), 8 + 112 * 3 + 56, 8);
  put_le(e.record("VARS", 3) + 104, tsr_crc32c(&e.file()[v1], size), 4);
  std::vector<uint8_t> b = e.bytes();
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  const void* data;
  size_t blob_size;
  EXPECT_EQ(tsr_variant_blob(a, 1, 2, &data, &blob_size), TSR_OK);
  tsr_archive_close(a);
  Expected<ArchiveContents> read = read_archive(b);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), "blob of kernel 'vadd' variant x86:v1: sha256 mismatch");
}

}  // namespace
}  // namespace tsr
