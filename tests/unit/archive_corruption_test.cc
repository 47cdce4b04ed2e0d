// Damaged archives: every region is covered by a hash or a structural check,
// and every failure is a clean status, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>

#include <sys/stat.h>

#include "archive/archive_reader.h"
#include "support/file_io.h"
#include "archive/archive_writer.h"
#include "archive_mutation.h"
#include "archive_test_support.h"
#include "support/sha256.h"
#include "tesserart.h"

namespace tsr {
namespace {

using testing::le;
using testing::put_le;
using testing::reseal;
using testing::sample_bytes;

tsr_status open_status(const std::vector<uint8_t>& b, uint32_t flags = 0, std::string* message = nullptr) {
  char buf[256] = "";
  tsr_open_options options{flags, buf, sizeof buf};
  tsr_archive* a = nullptr;
  tsr_status s = tsr_archive_open_memory(b.data(), b.size(), &options, &a);
  if (s == TSR_OK) EXPECT_NE(a, nullptr);
  else EXPECT_EQ(a, nullptr);
  tsr_archive_close(a);
  if (message) *message = buf;
  return s;
}

TEST(ArchiveCorruption, EveryHeaderByteFlipIsDetectedAtOpen) {
  const std::vector<uint8_t>& good = sample_bytes();
  ASSERT_EQ(open_status(good), TSR_OK);
  for (size_t i = 0; i < 128; ++i) {
    std::vector<uint8_t> b = good;
    b[i] ^= 0x01;
    std::string message;
    tsr_status s = open_status(b, 0, &message);
    EXPECT_NE(s, TSR_OK) << "byte " << i;
    EXPECT_FALSE(message.empty()) << "byte " << i;
    EXPECT_FALSE(verify_archive(b).ok()) << "byte " << i;
  }
}

TEST(ArchiveCorruption, FlipInEachIndexSectionIsDetectedAtOpen) {
  const std::vector<uint8_t>& good = sample_bytes();
  auto secs = testing::section_ranges(good);
  ASSERT_EQ(secs.size(), 9u);   // STRS AMET KERN BIND DIMS VARS VMET VERD RCPT
  for (const auto& [tag, range] : secs) {
    for (size_t at : {range.first - 16, range.first - 8, range.first, (range.first + range.second) / 2, range.second - 1}) {
      std::vector<uint8_t> b = good;
      b[at] ^= 0x80;
      std::string message;
      EXPECT_EQ(open_status(b, 0, &message), TSR_ERROR_CHECKSUM) << tag << " @" << at;
      EXPECT_EQ(message, "archive index checksum mismatch");
      Status v = verify_archive(b);
      ASSERT_FALSE(v.ok());
      EXPECT_EQ(v.error().message(), "archive index checksum mismatch");
    }
  }
}

// Open checks the index's CRC-32C; verify also its SHA-256, so an index
// whose CRC was forged to match still fails verify.
TEST(ArchiveCorruption, IndexWithAMatchingCrcButAWrongSha256FailsVerify) {
  std::vector<uint8_t> b = sample_bytes();
  const size_t index_off = le(b, 24, 8), index_size = le(b, 32, 8);
  b[index_off + 4] ^= 0x01;   // the first section's reserved word: readers ignore it
  put_le(b, 52, tsr_crc32c(&b[index_off], index_size), 4);
  std::fill(b.begin() + 96, b.begin() + 128, 0);
  std::vector<uint8_t> h = sha256(b.data(), 128);
  std::copy(h.begin(), h.end(), b.begin() + 96);
  ASSERT_EQ(open_status(b), TSR_OK);
  Status v = verify_archive(b);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message(), "archive index sha256 mismatch");
}

// Open checks the kernel table and record ranges; the rest of a kernel's
// records on its first use. A bad dtype in one kernel (checksums resealed)
// opens, fails every accessor of that kernel, leaves the other kernel
// usable, and fails verify and TSR_OPEN_VERIFY_BLOBS with the same reason.
TEST(ArchiveCorruption, BadKernelRecordIsDetectedOnFirstUseAndByVerify) {
  testing::ArchiveEditor editor(sample_bytes());
  // Kernels are sorted by name: "scale" (0), "vadd" (1).
  editor.record("BIND", le(editor.section("KERN"), 8 + 56 + 32, 4))[9] = 0xee;   // dtype of "in0"
  std::vector<uint8_t> b = editor.bytes();
  const std::string reason = "kernel 'vadd': binding 'in0' has a bad dtype";

  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  size_t k = 9;
  ASSERT_EQ(tsr_archive_find_kernel(a, "vadd", &k), TSR_OK);
  EXPECT_EQ(k, 1u);
  tsr_kernel_info ki;
  tsr_binding_info bi;
  tsr_variant_info vi;
  tsr_verdict_info di;
  const char *key, *value;
  const void* blob;
  size_t blob_size;
  tsr_selection sel;
  for (int pass = 0; pass < 2; ++pass) {   // the second pass reads the cached state
    EXPECT_EQ(tsr_archive_kernel_at(a, 1, &ki), TSR_ERROR_CORRUPT);
    EXPECT_EQ(tsr_kernel_binding_at(a, 1, 0, &bi), TSR_ERROR_CORRUPT);
    EXPECT_EQ(tsr_kernel_variant_at(a, 1, 0, &vi), TSR_ERROR_CORRUPT);
    EXPECT_EQ(tsr_variant_metadata_find(a, 1, 0, "cuda.block", &value), TSR_ERROR_CORRUPT);
    EXPECT_EQ(tsr_kernel_verdict_at(a, 1, 0, &di), TSR_ERROR_CORRUPT);
    EXPECT_EQ(tsr_variant_blob(a, 1, 0, &blob, &blob_size), TSR_ERROR_CORRUPT);
    EXPECT_EQ(tsr_archive_last_message(a), reason);
    EXPECT_EQ(tsr_kernel_select(a, 1, nullptr, &sel), TSR_ERROR_CORRUPT);
  }
  EXPECT_EQ(tsr_archive_kernel_at(a, 2, &ki), TSR_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(tsr_archive_kernel_at(a, 0, &ki), TSR_OK);
  EXPECT_STREQ(ki.name, "scale");
  EXPECT_EQ(tsr_kernel_variant_at(a, 0, 0, &vi), TSR_OK);
  EXPECT_EQ(tsr_variant_metadata_at(a, 0, 0, 0, &key, &value), TSR_OK);
  tsr_kernel* kernel = nullptr;
  EXPECT_EQ(tsr_kernel_load(a, "vadd", nullptr, &kernel), TSR_ERROR_CORRUPT);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_EQ(tsr_archive_last_message(a), reason);
  char msg[256] = "";
  EXPECT_EQ(tsr_archive_verify(a, msg, sizeof msg), TSR_ERROR_CORRUPT);
  EXPECT_EQ(std::string(msg), reason);
  tsr_archive_close(a);

  std::string message;
  EXPECT_EQ(open_status(b, TSR_OPEN_VERIFY_BLOBS, &message), TSR_ERROR_CORRUPT);
  EXPECT_EQ(message, reason);
}

TEST(ArchiveCorruption, FlipInABlobOfAFileIsDetectedOnFirstUse) {
  std::vector<uint8_t> b = sample_bytes();
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  tsr_variant_info vi;
  ASSERT_EQ(tsr_kernel_variant_at(a, 0, 0, &vi), TSR_OK);
  tsr_archive_close(a);
  b[vi.offset + vi.size - 1] ^= 0x04;
  const std::string path = ::testing::TempDir() + "/flipped_blob.tfat";
  ASSERT_TRUE(write_file_atomic(path, b).ok());
  ASSERT_EQ(tsr_archive_open_file(path.c_str(), nullptr, &a), TSR_OK);
  const void* data;
  size_t size;
  EXPECT_EQ(tsr_variant_blob(a, 0, 0, &data, &size), TSR_ERROR_CHECKSUM);
  EXPECT_NE(std::string(tsr_archive_last_message(a)).find("crc32c mismatch"), std::string::npos);
  EXPECT_EQ(tsr_variant_blob(a, 1, 0, &data, &size), TSR_OK);   // another blob stays usable
  char message[256];
  EXPECT_EQ(tsr_archive_verify(a, message, sizeof message), TSR_ERROR_CHECKSUM);
  EXPECT_NE(std::string(message).find("sha256 mismatch"), std::string::npos) << message;
  tsr_archive_close(a);
  tsr_open_options full{TSR_OPEN_VERIFY_BLOBS, message, sizeof message};
  EXPECT_EQ(tsr_archive_open_file(path.c_str(), &full, &a), TSR_ERROR_CHECKSUM);
  EXPECT_EQ(a, nullptr);
  EXPECT_NE(std::string(message).find("sha256 mismatch"), std::string::npos) << message;
  std::remove(path.c_str());
}

TEST(ArchiveCorruption, FlipInEachBlobIsDetectedOnFirstUseAndByVerify) {
  const std::vector<uint8_t>& good = sample_bytes();
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(good.data(), good.size(), nullptr, &a), TSR_OK);
  std::vector<std::pair<size_t, size_t>> blobs;   // (kernel, variant)
  std::vector<uint64_t> offsets;
  for (size_t k = 0; k < 2; ++k)
    for (size_t v = 0;; ++v) {
      tsr_variant_info vi;
      if (tsr_kernel_variant_at(a, k, v, &vi) != TSR_OK) break;
      blobs.push_back({k, v});
      offsets.push_back(vi.offset + vi.size / 2);
    }
  tsr_archive_close(a);
  ASSERT_EQ(blobs.size(), 6u);
  for (size_t i = 0; i < blobs.size(); ++i) {
    std::vector<uint8_t> b = good;
    b[offsets[i]] ^= 0x10;
    EXPECT_EQ(open_status(b, TSR_OPEN_VERIFY_BLOBS), TSR_ERROR_CHECKSUM);
    ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
    const void* data;
    size_t size;
    EXPECT_EQ(tsr_variant_blob(a, blobs[i].first, blobs[i].second, &data, &size), TSR_ERROR_CHECKSUM);
    // First use checks the blob's CRC-32C; verify (below) its SHA-256.
    EXPECT_NE(std::string(tsr_archive_last_message(a)).find("crc32c mismatch"), std::string::npos);
    // The other blobs stay usable.
    size_t other = (i + 1) % blobs.size();
    EXPECT_EQ(tsr_variant_blob(a, blobs[other].first, blobs[other].second, &data, &size), TSR_OK);
    tsr_archive_close(a);
    Status v = verify_archive(b);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.error().message().find("sha256 mismatch"), std::string::npos) << v.error().message();
  }
}

TEST(ArchiveCorruption, LoadingACorruptX86BlobFailsCleanly) {
  std::vector<uint8_t> b = sample_bytes();
  tsr_archive* a = nullptr;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  tsr_select_options x86{"x86", 0};
  tsr_selection sel;
  size_t k;
  ASSERT_EQ(tsr_archive_find_kernel(a, "vadd", &k), TSR_OK);
  ASSERT_EQ(tsr_kernel_select(a, k, &x86, &sel), TSR_OK);
  tsr_variant_info vi;
  ASSERT_EQ(tsr_kernel_variant_at(a, k, sel.variant, &vi), TSR_OK);
  tsr_archive_close(a);
  b[vi.offset + 100] ^= 0xff;
  ASSERT_EQ(tsr_archive_open_memory(b.data(), b.size(), nullptr, &a), TSR_OK);
  tsr_kernel* kernel = nullptr;
  EXPECT_EQ(tsr_kernel_load(a, "vadd", &x86, &kernel), TSR_ERROR_CHECKSUM);
  EXPECT_EQ(kernel, nullptr);
  tsr_archive_close(a);
}

TEST(ArchiveCorruption, PaddingAndTrailingBytesAreCaughtByVerify) {
  std::vector<uint8_t> b = sample_bytes();
  size_t index_end = le(b, 24, 8) + le(b, 32, 8);
  b[index_end + 1] = 7;
  EXPECT_EQ(open_status(b), TSR_OK);   // open does not scan padding
  Status v = verify_archive(b);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message().find("nonzero padding"), std::string::npos) << v.error().message();
  b = sample_bytes();
  b.push_back(0);
  v = verify_archive(b);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message(), "1 bytes after the declared end of the archive");
}

TEST(ArchiveCorruption, TruncationAt32LengthsIsACleanError) {
  const std::vector<uint8_t>& good = sample_bytes();
  for (size_t i = 0; i < 32; ++i) {
    const size_t len = good.size() * i / 32;
    std::vector<uint8_t> b(good.begin(), good.begin() + len);
    std::string message;
    EXPECT_EQ(open_status(b, 0, &message), TSR_ERROR_TRUNCATED) << len;
    EXPECT_NE(message.find("archive truncated"), std::string::npos) << message;
    EXPECT_FALSE(verify_archive(b).ok());
  }
}

TEST(ArchiveCorruption, FutureMajorVersionIsRefusedByName) {
  std::vector<uint8_t> b = sample_bytes();
  put_le(b, 8, 3, 2);
  put_le(b, 10, 3, 2);
  std::string message;
  EXPECT_EQ(open_status(b, 0, &message), TSR_ERROR_UNSUPPORTED_VERSION);
  EXPECT_EQ(message, "unsupported archive format version 3.3 (this reader reads 2.x)");
  Status v = verify_archive(b);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message(), "unsupported archive format version 3.3 (this reader reads 2.x)");
  EXPECT_STREQ(tsr_status_string(TSR_ERROR_UNSUPPORTED_VERSION), "unsupported archive format version");
}

// A format 1.0 archive: today's bytes with the version field set back to 1.0
// and every checksum sealed again, so the version is the only thing wrong.
std::vector<uint8_t> format_1_0_bytes() {
  std::vector<uint8_t> b = sample_bytes();
  put_le(b, 8, 1, 2);
  put_le(b, 10, 0, 2);
  reseal(b);
  return b;
}

const char* const kOldFormatMessage =
    "archive format 1.0 holds kernels of kernel ABI v1, which this runtime (format 2.x, kernel ABI v2) cannot "
    "launch; rebuild it with tesserac " TESSERAC_VERSION;

TEST(ArchiveCorruption, Format1ArchiveIsConsistentExceptForItsVersion) {
  const std::vector<uint8_t> old = format_1_0_bytes();
  EXPECT_EQ(le(old, 8, 2), 1u);
  EXPECT_EQ(le(old, 10, 2), 0u);
  // Its checksums hold for its own bytes (the header SHA-256 covers the version)...
  const size_t index_off = le(old, 24, 8), index_size = le(old, 32, 8);
  EXPECT_EQ(le(old, 52, 4), tsr_crc32c(&old[index_off], index_size));
  EXPECT_EQ(std::vector<uint8_t>(old.begin() + 64, old.begin() + 96), sha256(&old[index_off], index_size));
  std::vector<uint8_t> header(old.begin(), old.begin() + 128);
  std::fill(header.begin() + 96, header.end(), 0);
  EXPECT_EQ(std::vector<uint8_t>(old.begin() + 96, old.begin() + 128), sha256(header.data(), header.size()));
  // ...and with the version put back it is today's archive, byte for byte.
  std::vector<uint8_t> back = old;
  put_le(back, 8, kArchiveMajor, 2);
  put_le(back, 10, kArchiveMinor, 2);
  reseal(back);
  EXPECT_EQ(back, sample_bytes());
}

TEST(ArchiveCorruption, Format1ArchiveIsRefusedNamingBothVersions) {
  const std::vector<uint8_t> old = format_1_0_bytes();
  std::string message;
  EXPECT_EQ(open_status(old, 0, &message), TSR_ERROR_UNSUPPORTED_VERSION);
  EXPECT_EQ(message, kOldFormatMessage);
  EXPECT_EQ(open_status(old, TSR_OPEN_VERIFY_BLOBS, &message), TSR_ERROR_UNSUPPORTED_VERSION);
  EXPECT_EQ(message, kOldFormatMessage);
  // A 1.x minor says its own number.
  std::vector<uint8_t> old_minor = old;
  put_le(old_minor, 10, 4, 2);
  reseal(old_minor);
  EXPECT_EQ(open_status(old_minor, 0, &message), TSR_ERROR_UNSUPPORTED_VERSION);
  EXPECT_EQ(message.rfind("archive format 1.4 holds kernels of kernel ABI v1, ", 0), 0u) << message;
  // The compiler's readers (verify, inspect, merge, embed, test --archive) say the same.
  Status v = verify_archive(old);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message(), kOldFormatMessage);
  Expected<ArchiveContents> c = read_archive(old);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), kOldFormatMessage);
}

TEST(ArchiveCorruption, Format1ArchiveFileIsRefusedNamingBothVersions) {
  const std::filesystem::path dir = testing::make_temp_dir("fmt1");
  const std::string path = (dir / "old.tfat").string();
  ASSERT_TRUE(write_file_atomic(path, format_1_0_bytes()).ok());
  char buf[256] = "";
  tsr_open_options options{0, buf, sizeof buf};
  tsr_archive* a = reinterpret_cast<tsr_archive*>(&options);   // must be cleared on failure
  EXPECT_EQ(tsr_archive_open_file(path.c_str(), &options, &a), TSR_ERROR_UNSUPPORTED_VERSION);
  EXPECT_EQ(a, nullptr);
  EXPECT_STREQ(buf, kOldFormatMessage);
  Expected<ArchiveContents> c = read_archive_file(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), path + ": " + kOldFormatMessage);
  std::filesystem::remove_all(dir);
}

// A 2.4 file (a minor version after this reader's 2.3): longer header, an
// unknown section; blobs stay where they were.
TEST(ArchiveCorruption, MinorAdditionsAreTolerated) {
  const std::vector<uint8_t>& good = sample_bytes();
  const size_t index_size = le(good, 32, 8);
  std::vector<uint8_t> b(good.begin(), good.begin() + 128);
  b.insert(b.end(), 8, 0xab);                                // new header field
  b.insert(b.end(), good.begin() + 128, good.begin() + 128 + index_size);
  const char extra[] = "NEWS\0\0\0\0\x08\0\0\0\0\0\0\0payload!";
  b.insert(b.end(), extra, extra + 24);                      // unknown section
  ASSERT_LE(b.size(), le(good, 40, 8));
  b.resize(le(good, 40, 8), 0);
  b.insert(b.end(), good.begin() + le(good, 40, 8), good.end());
  ASSERT_EQ(b.size(), good.size());
  put_le(b, 10, 4, 2);
  put_le(b, 12, 136, 4);
  put_le(b, 24, 136, 8);
  put_le(b, 32, index_size + 24, 8);
  std::vector<uint8_t> h = sha256(&b[136], index_size + 24);
  std::copy(h.begin(), h.end(), b.begin() + 64);
  put_le(b, 52, tsr_crc32c(&b[136], index_size + 24), 4);
  std::fill(b.begin() + 96, b.begin() + 128, 0);
  h = sha256(b.data(), 136);
  std::copy(h.begin(), h.end(), b.begin() + 96);

  ASSERT_EQ(open_status(b), TSR_OK);
  Expected<ArchiveContents> back = read_archive(b);
  ASSERT_TRUE(back.ok()) << back.error().message();
  Expected<ArchiveContents> orig = read_archive(good);
  ASSERT_TRUE(orig.ok());
  ASSERT_EQ(back->kernels.size(), orig->kernels.size());
  for (size_t i = 0; i < back->kernels.size(); ++i) EXPECT_TRUE(same_kernel(back->kernels[i], orig->kernels[i]));
  EXPECT_TRUE(verify_archive(b).ok());
}

TEST(ArchiveCorruption, GarbageIsRejected) {
  EXPECT_EQ(open_status(std::vector<uint8_t>(4096, 0)), TSR_ERROR_BAD_MAGIC);
  EXPECT_EQ(open_status({}), TSR_ERROR_TRUNCATED);
  tsr_archive* a = nullptr;
  EXPECT_EQ(tsr_archive_open_memory(nullptr, 5, nullptr, &a), TSR_ERROR_NULL_ARGUMENT);
  EXPECT_EQ(tsr_archive_open_file("/nonexistent/k.tfat", nullptr, &a), TSR_ERROR_IO);
  EXPECT_FALSE(verify_archive_file("/nonexistent/k.tfat").ok());
}

// A FIFO must be refused at once, not block waiting for a writer (the test
// would hang without O_NONBLOCK in tsr_archive_open_file).
TEST(ArchiveCorruption, FifoAndDirectoryAreRefusedWithoutBlocking) {
  const std::string fifo = ::testing::TempDir() + "/archive_fifo.tfat";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  char message[256] = "";
  tsr_open_options options{0, message, sizeof message};
  tsr_archive* a = nullptr;
  EXPECT_EQ(tsr_archive_open_file(fifo.c_str(), &options, &a), TSR_ERROR_IO);
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(std::string(message), "cannot read '" + fifo + "': not a regular file");
  std::remove(fifo.c_str());
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(tsr_archive_open_file(dir.c_str(), &options, &a), TSR_ERROR_IO);
  EXPECT_EQ(std::string(message), "cannot read '" + dir + "': not a regular file");
}

}  // namespace
}  // namespace tsr
