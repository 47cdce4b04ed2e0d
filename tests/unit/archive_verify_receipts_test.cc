// `tesserac verify` on archives with receipts: the stub's validator binds
// each receipt to its variant; verify also refuses a receipt whose own
// bytes are malformed (docs/cli.md, "verify").
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "archive/archive_writer.h"
#include "archive/verify_receipts.h"
#include "archive_test_support.h"
#include "support/file_io.h"
#include "support/subprocess.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;

TEST(VerifyReceipts, WellFormedReceiptsVerify) {
  EXPECT_TRUE(verify_receipts(testing::sample_with_receipts()).ok());
}

TEST(VerifyReceipts, AMalformedTrailerIsAnErrorNamingKernelAndTarget) {
  ArchiveContents c = testing::sample_with_receipts();
  ArchiveKernel& vadd = c.kernels[0];
  vadd.receipts.push_back(testing::receipt_for(vadd, {"x86", "v2"}, "format_version = 1\n# tesserac-signature ed25519 zz\n"));
  Status s = verify_receipts(c);
  ASSERT_FALSE(s.ok());
  const std::string message =
      "kernel 'vadd' receipt x86:v2: malformed signature trailer: expected '# tesserac-signature ed25519 <key id: 64 "
      "hex digits> <signature: 128 hex digits>'";
  EXPECT_EQ(s.error().message(), message);

  const fs::path dir = testing::make_temp_dir("verify-receipts");
  const std::string bad = (dir / "bad.tfat").string(), good = (dir / "good.tfat").string();
  ASSERT_TRUE(write_file_atomic(bad, *serialize_archive(c)).ok());
  ASSERT_TRUE(write_file_atomic(good, *serialize_archive(testing::sample_with_receipts())).ok());
  ProcessResult r = run_process({TSR_BINARY_DIR "/tesserac", "verify", bad});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "tesserac: error: " + bad + ": " + message + "\n");
  r = run_process({TSR_BINARY_DIR "/tesserac", "verify", good});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, good + ": ok\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tsr
