// Ed25519 signatures over receipts, with OpenSSL (docs/receipt-format.md).
//
// A signed receipt is the canonical receipt bytes followed by one trailer
// line, a TOML comment so the file stays one valid TOML document:
//   # tesserac-signature ed25519 <key_id hex> <signature hex>
// The signature covers every byte before the trailer line. Verification
// splits the trailer off and checks it BEFORE the rest is parsed (the
// in-toto/DSSE order): a receipt whose signature fails is never decoded.
//
// Key files are PEM (PKCS#8 private key, SubjectPublicKeyInfo public key), as
// `openssl genpkey -algorithm ed25519` writes them. A trusted-keys file is a
// list of PEM public keys. Key material is never written into receipts,
// archives, or messages; a key is named only by its key id (hex SHA-256 of the
// raw 32-byte public key).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/error.h"

namespace tsr {

struct SigningKey;     // opaque; owns an OpenSSL EVP_PKEY
struct TrustedKeys;    // opaque; the public keys of a trusted-keys file by key id

Expected<std::shared_ptr<SigningKey>> load_signing_key(const std::string& pem_path);
Expected<std::shared_ptr<TrustedKeys>> load_trusted_keys(const std::string& pem_path);
std::string signing_key_id(const SigningKey& key);

// Appends the trailer line to unsigned canonical bytes.
Expected<std::string> sign_receipt_bytes(const std::string& canonical, const SigningKey& key);

// Splits a receipt file into its signed payload and trailer. `signed_payload`
// is the whole file and `has_trailer` false when there is none.
struct SplitReceipt {
  std::string payload;
  bool has_trailer = false;
  std::string key_id;
  std::string signature_hex;
};
Expected<SplitReceipt> split_receipt_signature(const std::string& file_bytes);

// Checks a split receipt against the trusted keys: unsigned, unknown key and
// bad signature are three distinct errors naming the key id (never the key).
Status verify_receipt_signature(const SplitReceipt& split, const TrustedKeys& keys);

}  // namespace tsr
