// The receipt codec (src/pipeline/receipts/): canonical bytes, exact round trips and
// the decoder's refusals that are not covered by a golden file
// (tests/bad_receipts/, ReceiptCodecGolden.*).
#include <gtest/gtest.h>

#include <cstdint>

#include "receipt_samples.h"
#include "receipts/receipt.h"
#include "receipts/receipt_limits.h"

namespace tsr {
namespace {

using testing::cuda_receipt;
using testing::sample_receipts;
using testing::signed_receipt;
using testing::x86_receipt;

struct Decoded {
  std::optional<Receipt> receipt;
  std::string diagnostics;
};

Decoded decode(const std::string& text) {
  DiagnosticEngine diag;
  Decoded d;
  d.receipt = decode_receipt(text, "r.toml", diag);
  d.diagnostics = diag.render();
  return d;
}

void expect_same(const Receipt& a, const Receipt& b) {
  EXPECT_EQ(a.format_version, b.format_version);
  EXPECT_EQ(a.kernel, b.kernel);
  EXPECT_EQ(a.identity, b.identity);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.codec_version, b.codec_version);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.artifact_sha256, b.artifact_sha256);
  EXPECT_EQ(a.artifact_key, b.artifact_key);
  EXPECT_EQ(a.toolchain, b.toolchain);
  EXPECT_EQ(a.device.name, b.device.name);
  EXPECT_EQ(a.device.vendor, b.device.vendor);
  EXPECT_EQ(a.device.capability, b.device.capability);
  EXPECT_EQ(a.device.driver, b.device.driver);
  EXPECT_EQ(a.tesserac_version, b.tesserac_version);
  EXPECT_EQ(a.oracle.verdict, b.oracle.verdict);
  EXPECT_EQ(a.oracle.seed, b.oracle.seed);
  EXPECT_EQ(a.oracle.trials, b.oracle.trials);
  EXPECT_EQ(a.oracle.determinism_checked, b.oracle.determinism_checked);
  // Bit-exact: the writer's shortest spelling must read back as the same double.
  EXPECT_EQ(a.oracle.max_abs_err, b.oracle.max_abs_err);
  EXPECT_EQ(a.oracle.max_rel_err, b.oracle.max_rel_err);
  EXPECT_EQ(a.oracle.budget_atol, b.oracle.budget_atol);
  EXPECT_EQ(a.oracle.budget_rtol, b.oracle.budget_rtol);
  EXPECT_EQ(a.oracle.budget_use, b.oracle.budget_use);
  EXPECT_EQ(a.oracle.deciding_term, b.oracle.deciding_term);
  EXPECT_EQ(a.oracle.trial_shapes, b.oracle.trial_shapes);
  EXPECT_EQ(a.measurement.route, b.measurement.route);
  EXPECT_EQ(a.measurement.median_latency_ns, b.measurement.median_latency_ns);
  EXPECT_EQ(a.measurement.launches, b.measurement.launches);
  EXPECT_EQ(a.qualified_at, b.qualified_at);
  ASSERT_EQ(a.signature.has_value(), b.signature.has_value());
  if (a.signature) {
    EXPECT_EQ(a.signature->key_id, b.signature->key_id);
    EXPECT_EQ(a.signature->signature_hex, b.signature->signature_hex);
  }
}

TEST(ReceiptCodec, WriteDecodeWriteGivesIdenticalBytes) {
  for (const Receipt& original : sample_receipts()) {
    const std::string bytes = write_receipt(original);
    Decoded d = decode(bytes);
    ASSERT_TRUE(d.receipt) << d.diagnostics << "\n" << bytes;
    EXPECT_EQ(d.diagnostics, "");
    expect_same(*d.receipt, original);
    EXPECT_EQ(write_receipt(*d.receipt), bytes);
  }
}

TEST(ReceiptCodec, CanonicalBytesAreExact) {
  EXPECT_EQ(write_receipt(x86_receipt()),
            "format_version = 1\n"
            "qualified_at = 2026-12-01T14:00:00Z\n"
            "\n[kernel]\n"
            "name = \"vec_add\"\n"
            "identity = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n"
            "family = \"elementwise\"\n"
            "codec_version = 1\n"
            "\n[target]\n"
            "kind = \"x86\"\n"
            "arch = \"v3\"\n"
            "\n[artifact]\n"
            "sha256 = \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n"
            "key = \"x86:v3/clang-14.0.6/-O3 -march=x86-64-v3\"\n"
            "toolchain = \"clang 14.0.6\"\n"
            "\n[device]\n"
            "name = \"AMD EPYC 9B14 96-Core Processor\"\n"
            "vendor = \"AuthenticAMD\"\n"
            "capability = \"x86-64-v4 avx2 avx512f\"\n"
            "driver = \"6.1.0-18-amd64\"\n"
            "\n[tesserac]\n"
            "version = \"0.1.0\"\n"
            "\n[oracle]\n"
            "verdict = \"PASS\"\n"
            "seed = \"42\"\n"
            "trials = 3\n"
            "determinism_checked = true\n"
            "max_abs_err = 0.0\n"
            "max_rel_err = 0.0\n"
            "budget_atol = 1e-06\n"
            "budget_rtol = 1e-05\n"
            "budget_use = 0.0\n"
            "deciding_term = \"absolute\"\n"
            "trial_shapes = [\n"
            "  { N = 1 },\n"
            "  { N = 17 },\n"
            "  { N = 4096 },\n"
            "]\n"
            "\n[measurement]\n"
            "route = \"memfd+dlopen\"\n"
            "median_latency_ns = 812.5\n"
            "launches = 200\n");
}

TEST(ReceiptCodec, NoLineHasTrailingWhitespaceOrCarriageReturn) {
  for (const Receipt& r : sample_receipts()) {
    const std::string bytes = write_receipt(r);
    ASSERT_EQ(bytes.back(), '\n');
    EXPECT_EQ(bytes.find(" \n"), std::string::npos) << bytes;
    EXPECT_EQ(bytes.find("\t\n"), std::string::npos) << bytes;
    EXPECT_EQ(bytes.find('\r'), std::string::npos) << bytes;
  }
}

TEST(ReceiptCodec, ValuesHaveOneSpelling) {
  const std::string cuda = write_receipt(cuda_receipt());
  EXPECT_NE(cuda.find("seed = \"18446744073709551615\"\n"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("max_abs_err = 0.30000000000000004\n"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("max_rel_err = 5e-324\n"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("median_latency_ns = 1.5e+07\n"), std::string::npos) << cuda;
  const std::string odd = write_receipt(signed_receipt());
  EXPECT_NE(odd.find("name = \"Quote \\\" backslash \\\\ tab \\t newline \\n bell \\u0007 del \\u007F caf\xc3\xa9 \xe2\x82\xac\"\n"),
            std::string::npos) << odd;
  EXPECT_NE(odd.find("max_abs_err = 1e+300\n"), std::string::npos) << odd;
  EXPECT_NE(odd.find("trial_shapes = [\n  {},\n  {},\n]\n"), std::string::npos) << odd;
}

TEST(ReceiptCodec, SignatureIsTheLastLineAndIsPreserved) {
  const Receipt r = signed_receipt();
  const std::string bytes = write_receipt(r);
  const std::string trailer = "# tesserac-signature ed25519 " + std::string(64, 'c') + " " + std::string(128, 'd') + "\n";
  ASSERT_GT(bytes.size(), trailer.size());
  EXPECT_EQ(bytes.substr(bytes.size() - trailer.size()), trailer);
  // The signed payload is the unsigned receipt's bytes exactly.
  Receipt unsigned_copy = r;
  unsigned_copy.signature.reset();
  EXPECT_EQ(bytes.substr(0, bytes.size() - trailer.size()), write_receipt(unsigned_copy));
  // Without its final newline the trailer is still read.
  Decoded d = decode(bytes.substr(0, bytes.size() - 1));
  ASSERT_TRUE(d.receipt) << d.diagnostics;
  ASSERT_TRUE(d.receipt->signature);
  EXPECT_EQ(d.receipt->signature->key_id, std::string(64, 'c'));
}

TEST(ReceiptCodec, UnsignedReceiptDecodesWithoutSignature) {
  Decoded d = decode(write_receipt(x86_receipt()));
  ASSERT_TRUE(d.receipt) << d.diagnostics;
  EXPECT_FALSE(d.receipt->signature.has_value());
}

TEST(ReceiptCodec, FileNameNamesKernelTargetAndHashPrefix) {
  EXPECT_EQ(receipt_file_name(x86_receipt()), "vec_add.x86-v3.0123456789ab.receipt.toml");
  EXPECT_EQ(receipt_file_name(cuda_receipt()), "gemm_bias_gelu.cuda-sm_90.0123456789ab.receipt.toml");
}

TEST(ReceiptCodec, MalformedTimestampIsWrittenQuotedAndRefused) {
  Receipt r = x86_receipt();
  r.qualified_at = "2026-12-01 14:00\n[evil]";
  const std::string bytes = write_receipt(r);
  EXPECT_NE(bytes.find("qualified_at = \"2026-12-01 14:00\\n[evil]\"\n"), std::string::npos) << bytes;
  Decoded d = decode(bytes);
  EXPECT_FALSE(d.receipt);
  EXPECT_EQ(d.diagnostics,
            "r.toml:2:16: error: expected a date-time for 'qualified_at', got a string\n"
            "qualified_at = \"2026-12-01 14:00\\n[evil]\"\n"
            "               ^\n");
}

TEST(ReceiptCodec, InvalidUtf8IsWrittenAsReplacementCharacter) {
  Receipt r = x86_receipt();
  r.device.name = "bad \xff byte";
  Decoded d = decode(write_receipt(r));
  ASSERT_TRUE(d.receipt) << d.diagnostics;
  EXPECT_EQ(d.receipt->device.name, "bad \xef\xbf\xbd byte");
}

TEST(ReceiptCodec, OversizedFileIsRefusedBeforeParsing) {
  std::string text = write_receipt(x86_receipt());
  text += "# " + std::string(kMaxReceiptFileBytes, 'x') + "\n";
  Decoded d = decode(text);
  EXPECT_FALSE(d.receipt);
  EXPECT_EQ(d.diagnostics, "r.toml: error: receipt is " + std::to_string(text.size()) +
                               " bytes, over the limit of 65536 bytes\n");
}

TEST(ReceiptCodec, EveryErrorOfAFileIsReportedInOneRun) {
  std::string text = write_receipt(x86_receipt());
  auto replace = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
  replace("trials = 3", "trials = -3");
  replace("verdict = \"PASS\"", "verdict = \"FAIL\"");
  replace("kind = \"x86\"", "kind = \"rocm\"");
  replace("launches = 200", "launches = 200\nextra = 1");
  Decoded d = decode(text);
  EXPECT_FALSE(d.receipt);
  EXPECT_NE(d.diagnostics.find("error: 'trials' must be at least 1, got -3"), std::string::npos) << d.diagnostics;
  EXPECT_NE(d.diagnostics.find("error: verdict 'FAIL' makes no receipt"), std::string::npos) << d.diagnostics;
  EXPECT_NE(d.diagnostics.find("error: unknown target kind 'rocm' (allowed: x86, cuda, hip, xdna)"), std::string::npos) << d.diagnostics;
  EXPECT_NE(d.diagnostics.find("error: unknown key 'extra' in [measurement]"), std::string::npos) << d.diagnostics;
}

}  // namespace
}  // namespace tsr
