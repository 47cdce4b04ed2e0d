// Ed25519 receipt signatures (src/pipeline/receipts/receipt_signature.h,
// docs/receipt-signing.md). Keys are made here, at test time, with OpenSSL;
// none is checked in.
#include "receipts/receipt_signature.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "receipt_test_keys.h"
#include "support/sha256.h"
#include "support/subprocess.h"

namespace tsr {
namespace {

namespace fs = std::filesystem;
using testing::TestKey;

const std::string kCanonical =
    "format_version = 1\n\n[kernel]\nname = \"vadd\"\nidentity = \"" + std::string(64, 'a') + "\"\n";

std::string write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

std::string sign(const std::string& canonical, const TestKey& key) {
  Expected<std::string> s = sign_receipt_bytes(canonical, *key.signing());
  EXPECT_TRUE(s.ok()) << s.error().message();
  return s.ok() ? *s : "";
}

// Split, then verify: the error message, or "" when the receipt verifies.
std::string verify_text(const std::string& file, const TrustedKeys& keys) {
  Expected<SplitReceipt> split = split_receipt_signature(file);
  if (!split) return split.error().message();
  Status s = verify_receipt_signature(*split, keys);
  return s.ok() ? "" : s.error().message();
}

TEST(ReceiptSignature, SignAndVerifyRoundTrip) {
  TestKey key("roundtrip");
  const std::string id = signing_key_id(*key.signing());
  const std::string signed_text = sign(kCanonical, key);
  ASSERT_EQ(signed_text.substr(0, kCanonical.size()), kCanonical);
  const std::string trailer = signed_text.substr(kCanonical.size());
  EXPECT_EQ(trailer.substr(0, 29 + 64 + 1), "# tesserac-signature ed25519 " + id + " ");
  EXPECT_EQ(trailer.size(), 29 + 64 + 1 + 128 + 1u);
  Expected<SplitReceipt> split = split_receipt_signature(signed_text);
  ASSERT_TRUE(split.ok()) << split.error().message();
  EXPECT_TRUE(split->has_trailer);
  EXPECT_EQ(split->payload, kCanonical);
  EXPECT_EQ(split->key_id, id);
  EXPECT_EQ(split->signature_hex, trailer.substr(29 + 64 + 1, 128));
  EXPECT_TRUE(verify_receipt_signature(*split, *key.trusted()).ok());
  // Ed25519 is deterministic: the same bytes and key give the same file.
  EXPECT_EQ(sign(kCanonical, key), signed_text);
}

TEST(ReceiptSignature, OneFlippedPayloadByteIsABadSignature) {
  TestKey key("flip");
  std::string signed_text = sign(kCanonical, key);
  const std::string id = signing_key_id(*key.signing());
  const std::string bad = "receipt signature by key " + id +
                          " does not verify: the receipt changed after it was signed, or the signature is not that key's";
  for (size_t at : {size_t(0), kCanonical.size() / 2, kCanonical.size() - 2}) {
    std::string tampered = signed_text;
    tampered[at] ^= 0x01;
    EXPECT_EQ(verify_text(tampered, *key.trusted()), bad) << at;
  }
  std::string sig_flipped = signed_text;
  char& digit = sig_flipped[sig_flipped.size() - 2];
  digit = digit == '0' ? '1' : '0';
  EXPECT_EQ(verify_text(sig_flipped, *key.trusted()), bad);
  EXPECT_EQ(verify_text(signed_text, *key.trusted()), "");
}

TEST(ReceiptSignature, UnknownKeyIsRefusedByItsId) {
  TestKey signer("signer"), other("other");
  const std::string signed_text = sign(kCanonical, signer);
  EXPECT_EQ(verify_text(signed_text, *other.trusted()),
            "receipt is signed by key " + signing_key_id(*signer.signing()) + ", which is not a trusted key");
  // A trusted-keys file with both keys accepts it.
  const std::string both = write_text(other.dir / "both.pem", other.public_text + signer.public_text);
  Expected<std::shared_ptr<TrustedKeys>> keys = load_trusted_keys(both);
  ASSERT_TRUE(keys.ok()) << keys.error().message();
  EXPECT_EQ(verify_text(signed_text, **keys), "");
}

TEST(ReceiptSignature, UnsignedReceiptIsRefusedWhenKeysAreTrusted) {
  TestKey key("unsigned");
  Expected<SplitReceipt> split = split_receipt_signature(kCanonical);
  ASSERT_TRUE(split.ok());
  EXPECT_FALSE(split->has_trailer);
  EXPECT_EQ(split->payload, kCanonical);
  EXPECT_EQ(verify_text(kCanonical, *key.trusted()), "receipt is not signed, and trusted keys were given");
}

TEST(ReceiptSignature, MalformedTrailers) {
  TestKey key("malformed");
  const std::string good = sign(kCanonical, key);
  const std::string trailer = good.substr(kCanonical.size());
  const std::string shape =
      "malformed signature trailer (expected '# tesserac-signature ed25519 <key id: 64 lower-case hex digits> "
      "<signature: 128 lower-case hex digits>')";
  const std::string not_last = "a signature trailer must be the last line of the receipt";
  auto with_trailer = [&](std::string t) { return kCanonical + t; };
  std::string upper = trailer;
  for (size_t i = 29; i < 29 + 64; ++i) upper[i] = char(std::toupper(upper[i]));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {with_trailer("# tesserac-signature rsa " + trailer.substr(29)), shape},
      {with_trailer(trailer.substr(0, trailer.size() - 3) + "\n"), shape},      // signature cut short
      {with_trailer(trailer.substr(0, 29 + 63) + "g" + trailer.substr(29 + 64)), shape},   // not hex
      {with_trailer(upper), shape},                                                // upper-case hex
      {with_trailer(trailer.substr(0, trailer.size() - 1) + " \n"), shape},       // trailing space
      {with_trailer("# tesserac-signature \n"), shape},
      {good + "extra = 1\n", not_last},
      {good + trailer, not_last},
      {trailer + kCanonical, not_last},
  };
  for (const auto& [text, message] : cases) {
    Expected<SplitReceipt> split = split_receipt_signature(text);
    ASSERT_FALSE(split.ok()) << text;
    EXPECT_EQ(split.error().message(), message) << text;
  }
  // As the receipt codec reads it, the trailer's final newline is optional.
  Expected<SplitReceipt> no_final_newline = split_receipt_signature(good.substr(0, good.size() - 1));
  ASSERT_TRUE(no_final_newline.ok()) << no_final_newline.error().message();
  EXPECT_EQ(no_final_newline->payload, kCanonical);
  EXPECT_EQ(verify_text(good.substr(0, good.size() - 1), *key.trusted()), "");
  // A comment that merely mentions the phrase mid-line is not a trailer.
  Expected<SplitReceipt> comment = split_receipt_signature(kCanonical + "x = 1 # tesserac-signature\n");
  ASSERT_TRUE(comment.ok());
  EXPECT_FALSE(comment->has_trailer);
  Expected<std::string> twice = sign_receipt_bytes(good, *key.signing());
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message(), "receipt is already signed (by key " + signing_key_id(*key.signing()) + ")");
  Expected<std::string> no_newline = sign_receipt_bytes("format_version = 1", *key.signing());
  ASSERT_FALSE(no_newline.ok());
  EXPECT_EQ(no_newline.error().message(),
            "cannot sign a receipt that does not end with a newline (the trailer is a line of its own)");
}

// The key id is the hex SHA-256 of the raw 32-byte public key: the same
// from the private and the public file, on every load.
TEST(ReceiptSignature, KeyIdIsStable) {
  TestKey key("keyid");
  const std::string id = signing_key_id(*key.signing());
  EXPECT_EQ(id, sha256_hex(from_lower_hex(key.raw_public_hex).data(), 32));
  EXPECT_EQ(signing_key_id(*key.signing()), id);
  const std::string signed_text = sign(kCanonical, key);
  EXPECT_EQ(split_receipt_signature(signed_text)->key_id, id);
  EXPECT_EQ(verify_text(signed_text, *key.trusted()), "");   // found under the id the public file gives
}

TEST(ReceiptSignature, KeyFileErrors) {
  TestKey ed("errors"), ec("errors-ec", "EC");
  const std::string missing = (ed.dir / "none.pem").string();
  Expected<std::shared_ptr<SigningKey>> no_file = load_signing_key(missing);
  ASSERT_FALSE(no_file.ok());
  EXPECT_EQ(no_file.error().message().rfind(missing + ": ", 0), 0u) << no_file.error().message();
  const std::string not_ed25519 =
      ": not an Ed25519 private key in PEM (make one with `openssl genpkey -algorithm ed25519`)";
  Expected<std::shared_ptr<SigningKey>> wrong_kind = load_signing_key(ec.private_pem.string());
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_EQ(wrong_kind.error().message(), ec.private_pem.string() + not_ed25519);
  Expected<std::shared_ptr<SigningKey>> public_as_private = load_signing_key(ed.public_pem.string());
  ASSERT_FALSE(public_as_private.ok());
  EXPECT_EQ(public_as_private.error().message(), ed.public_pem.string() + not_ed25519);
  Expected<std::shared_ptr<TrustedKeys>> ec_trusted = load_trusted_keys(ec.public_pem.string());
  ASSERT_FALSE(ec_trusted.ok());
  EXPECT_EQ(ec_trusted.error().message(), ec.public_pem.string() + ": public key 1 is not an Ed25519 key");
  const std::string empty = write_text(ed.dir / "empty.pem", "");
  Expected<std::shared_ptr<TrustedKeys>> none = load_trusted_keys(empty);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(),
            empty + ": no PEM public key (expected '-----BEGIN PUBLIC KEY-----' blocks, as `openssl pkey -pubout` writes)");
}

// No message, and no signed receipt, carries key material: not the PEM
// text of either key, not the raw private or public key.
TEST(ReceiptSignature, KeyMaterialNeverAppearsInMessagesOrReceipts) {
  TestKey key("secret"), other("secret-other");
  std::vector<std::string> texts;
  const std::string private_as_trusted = write_text(key.dir / "mixed.pem", key.public_text + key.private_text);
  for (const std::string& path : {key.private_pem.string(), private_as_trusted}) {
    Expected<std::shared_ptr<TrustedKeys>> t = load_trusted_keys(path);
    ASSERT_FALSE(t.ok());
    texts.push_back(t.error().message());
  }
  EXPECT_EQ(texts[0], key.private_pem.string() + ": holds a private key; a trusted-keys file lists public keys only");
  const std::string garbage = write_text(key.dir / "garbage.pem", "-----BEGIN PRIVATE KEY-----\n" +
                                                                      key.raw_private_hex + "\n-----END PRIVATE KEY-----\n");
  texts.push_back(load_signing_key(garbage).error().message());
  texts.push_back(load_signing_key(key.public_pem.string()).error().message());
  const std::string signed_text = sign(kCanonical, key);
  texts.push_back(signed_text);
  texts.push_back(verify_text(signed_text, *other.trusted()));
  std::string tampered = signed_text;
  tampered[3] ^= 1;
  texts.push_back(verify_text(tampered, *key.trusted()));
  texts.push_back(verify_text(kCanonical, *key.trusted()));
  ASSERT_EQ(key.raw_private_hex.size(), 64u);
  auto pem_body_lines = [](const std::string& pem) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t nl; (nl = pem.find('\n', start)) != std::string::npos; start = nl + 1)
      if (pem.compare(start, 5, "-----") != 0) lines.push_back(pem.substr(start, nl - start));
    return lines;
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    EXPECT_EQ(text.find(key.raw_private_hex), std::string::npos);
    EXPECT_EQ(text.find(key.raw_public_hex), std::string::npos);
    for (const std::string& line : pem_body_lines(key.private_text)) EXPECT_EQ(text.find(line), std::string::npos);
    for (const std::string& line : pem_body_lines(key.public_text)) EXPECT_EQ(text.find(line), std::string::npos);
  }
}

// Keys exactly as the documented command writes them.
TEST(ReceiptSignature, KeysFromOpensslGenpkey) {
  TestKey scratch("cli");
  const std::string priv = (scratch.dir / "cli.pem").string(), pub = (scratch.dir / "cli.pub.pem").string();
  ProcessResult gen = run_process({"openssl", "genpkey", "-algorithm", "ed25519", "-out", priv});
  if (gen.exit_code != 0) GTEST_SKIP() << "the openssl command is not available: " << gen.output;
  ASSERT_EQ(run_process({"openssl", "pkey", "-in", priv, "-pubout", "-out", pub}).exit_code, 0);
  Expected<std::shared_ptr<SigningKey>> key = load_signing_key(priv);
  ASSERT_TRUE(key.ok()) << key.error().message();
  Expected<std::shared_ptr<TrustedKeys>> trusted = load_trusted_keys(pub);
  ASSERT_TRUE(trusted.ok()) << trusted.error().message();
  Expected<std::string> signed_text = sign_receipt_bytes(kCanonical, **key);
  ASSERT_TRUE(signed_text.ok());
  EXPECT_EQ(verify_text(*signed_text, **trusted), "");
}

}  // namespace
}  // namespace tsr
