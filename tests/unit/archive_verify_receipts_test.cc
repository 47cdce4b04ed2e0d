// `tesserac verify` on archives with receipts: the stub's validator binds
// each receipt record to its variant; verify also decodes each receipt with
// the receipt codec and compares it with that variant, as admission does
// (docs/cli.md, "verify").
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>

#include "archive/archive_writer.h"
#include "archive/verify_receipts.h"
#include "archive_test_support.h"
#include "codecs/codec.h"
#include "receipt_samples.h"
#include "support/file_io.h"
#include "support/sha256.h"
#include "support/subprocess.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

// sample_contents() (vadd first, unsorted) with one receipt for vadd x86:v3
// that decodes and matches, unless `edit` changes it.
ArchiveContents with_receipt(const std::function<void(Receipt&)>& edit = [](Receipt&) {}) {
  ArchiveContents c = testing::sample_contents();
  ArchiveKernel& vadd = c.kernels[0];
  const Artifact& v3 = vadd.variants[0];
  Receipt r = testing::receipt_for(vadd, v3);
  edit(r);
  vadd.receipts = {ArchiveReceipt{v3.target, sha256_hex(v3.bytes.data(), v3.bytes.size()), write_receipt(r)}};
  return c;
}

std::string verify_message(const ArchiveContents& c, std::string* diagnostics = nullptr) {
  std::ostringstream out;
  DiagnosticEngine diag(&out);
  Status s = verify_receipts(c, "k.tfat", diag);
  if (diagnostics) *diagnostics = out.str();
  return s.ok() ? "" : s.error().message();
}

TEST(VerifyReceipts, AMatchingReceiptVerifies) {
  EXPECT_EQ(verify_message(with_receipt()), "");
  EXPECT_EQ(verify_message(testing::sample_contents()), "");   // none at all
}

TEST(VerifyReceipts, EachFieldThatBindsIsCompared) {
  EXPECT_EQ(verify_message(with_receipt([](Receipt& r) { r.artifact_key = "other"; })),
            "kernel 'vadd' receipt x86:v3: artifact_key differs: receipt other, archive " + std::string(64, 'a'));
  EXPECT_EQ(verify_message(with_receipt([](Receipt& r) { r.artifact_sha256 = std::string(64, 'e'); })),
            "kernel 'vadd' receipt x86:v3: artifact_sha256 differs: receipt " + std::string(64, 'e') + ", archive " +
                sha256_hex(testing::vadd_object(3).data(), testing::vadd_object(3).size()));
  EXPECT_EQ(verify_message(with_receipt([](Receipt& r) { r.identity = std::string(64, 'b'); })),
            "kernel 'vadd' receipt x86:v3: identity differs: receipt " + std::string(64, 'b') + ", archive " +
                std::string(63, '0') + "1");
  EXPECT_EQ(verify_message(with_receipt([](Receipt& r) { r.kernel = "other"; })),
            "kernel 'vadd' receipt x86:v3: names kernel 'other'");
  EXPECT_EQ(verify_message(with_receipt([](Receipt& r) { r.target = {"x86", "v2"}; })),
            "kernel 'vadd' receipt x86:v3: names target x86:v2");
}

TEST(VerifyReceipts, AReceiptThatDoesNotDecodeIsAnErrorWithItsDiagnostics) {
  std::string diagnostics;
  EXPECT_EQ(verify_message(testing::sample_with_receipts(), &diagnostics),
            "kernel 'vadd' receipt x86:v3: not a valid receipt (see the errors above)");
  EXPECT_NE(diagnostics.find("k.tfat(vadd x86:v3 receipt 0):1:"), std::string::npos) << diagnostics;
  ArchiveContents c = with_receipt();
  c.kernels[0].receipts[0].bytes += "# tesserac-signature ed25519 zz\n";
  EXPECT_EQ(verify_message(c, &diagnostics), "kernel 'vadd' receipt x86:v3: not a valid receipt (see the errors above)");
  EXPECT_NE(diagnostics.find("malformed signature trailer"), std::string::npos) << diagnostics;
}

TEST(VerifyReceipts, TheCommandDecodesEveryReceipt) {
  const fs::path dir = testing::make_temp_dir("verify-receipts");
  const std::string bad = (dir / "bad.tfat").string(), good = (dir / "good.tfat").string();
  ASSERT_TRUE(write_file_atomic(bad, *serialize_archive(with_receipt([](Receipt& r) { r.artifact_key = "k2"; }))).ok());
  ASSERT_TRUE(write_file_atomic(good, *serialize_archive(with_receipt())).ok());
  ProcessResult r = run_process({TSR_BINARY_DIR "/tesserac", "verify", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "tesserac: error: " + bad + ": kernel 'vadd' receipt x86:v3: artifact_key differs: receipt k2, archive " +
                          std::string(64, 'a') + "\n");
  r = run_process({TSR_BINARY_DIR "/tesserac", "verify", good});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, good + ": ok\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tsr
