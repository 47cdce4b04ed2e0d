// Ed25519 receipt signatures with OpenSSL 3 (RFC 8032 through EVP_DigestSign,
// which signs the message itself: Ed25519 takes no separate digest), keys in
// PEM as `openssl genpkey -algorithm ed25519` writes them. docs/receipt-signing.md.
//
// Messages name a key by its key id and a key file by its path, never by
// anything read from it: no PEM text, no key bytes, no OpenSSL error string
// (those can quote the input).
#include "receipts/receipt_signature.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <map>
#include <vector>

#include "receipts/receipt_rules.h"
#include "receipts/receipt_trailer.h"
#include "support/file_io.h"
#include "support/sha256.h"

namespace tsr {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

struct SigningKey {
  KeyPtr key;
  std::string id;
};

struct TrustedKeys {
  std::map<std::string, KeyPtr> by_id;
};

namespace {

constexpr uint64_t kMaxKeyFileBytes = 1 << 20;

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// Hex SHA-256 of the raw 32-byte public key; empty if k is not Ed25519.
std::string key_id_of(EVP_PKEY* k) {
  uint8_t raw[32];
  size_t len = sizeof raw;
  if (EVP_PKEY_get_base_id(k) != EVP_PKEY_ED25519 || EVP_PKEY_get_raw_public_key(k, raw, &len) != 1 || len != 32)
    return "";
  return sha256_hex(raw, len);
}

Expected<std::string> read_key_file(const std::string& path, std::string_view what) {
  Expected<std::string> text = read_input_file(path, kMaxKeyFileBytes, what);
  if (!text) return Error(text.error().kind(), path + ": " + text.error().message());
  return text;
}

}  // namespace

Expected<std::shared_ptr<SigningKey>> load_signing_key(const std::string& pem_path) {
  Expected<std::string> text = read_key_file(pem_path, "signing key");
  if (!text) return text.take_error();
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(text->data(), int(text->size())));
  KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  auto out = std::make_shared<SigningKey>();
  if (key) out->id = key_id_of(key.get());
  if (out->id.empty())
    return invalid_input(pem_path + ": not an Ed25519 private key in PEM (make one with `openssl genpkey -algorithm ed25519`)");
  out->key = std::move(key);
  return out;
}

Expected<std::shared_ptr<TrustedKeys>> load_trusted_keys(const std::string& pem_path) {
  Expected<std::string> text = read_key_file(pem_path, "trusted-keys file");
  if (!text) return text.take_error();
  // PEM readers skip blocks of other types: a private key pasted here by
  // mistake would be ignored, and then kept in a file meant to be shared.
  if (text->find("PRIVATE KEY-----") != std::string::npos)
    return invalid_input(pem_path + ": holds a private key; a trusted-keys file lists public keys only");
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(text->data(), int(text->size())));
  auto out = std::make_shared<TrustedKeys>();
  int index = 0;
  while (bio) {
    KeyPtr key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
    if (!key) break;
    ++index;
    std::string id = key_id_of(key.get());
    if (id.empty()) return invalid_input(pem_path + ": public key " + std::to_string(index) + " is not an Ed25519 key");
    out->by_id.emplace(std::move(id), std::move(key));
  }
  if (out->by_id.empty())
    return invalid_input(pem_path + ": no PEM public key (expected '-----BEGIN PUBLIC KEY-----' blocks, as `openssl pkey -pubout` writes)");
  return out;
}

std::string signing_key_id(const SigningKey& key) { return key.id; }

Expected<std::string> sign_receipt_bytes(const std::string& canonical, const SigningKey& key) {
  if (canonical.empty() || canonical.back() != '\n')
    return invalid_input("cannot sign a receipt that does not end with a newline (the trailer is a line of its own)");
  Expected<SplitReceipt> split = split_receipt_signature(canonical);
  if (!split) return split.take_error();
  if (split->has_trailer) return invalid_input("receipt is already signed (by key " + split->key_id + ")");
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  uint8_t signature[64];
  size_t size = sizeof signature;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature, &size, reinterpret_cast<const uint8_t*>(canonical.data()),
                     canonical.size()) != 1 ||
      size != sizeof signature)
    return toolchain_error("OpenSSL could not sign the receipt with key " + key.id);
  return canonical + signature_trailer_line(ReceiptSignature{key.id, to_hex(signature, size)});
}

Expected<SplitReceipt> split_receipt_signature(const std::string& file_bytes) {
  // The trailer as the receipt codec finds it (receipt_trailer.h), with the
  // codec's rules and words: bytes the signature does not cover are refused.
  SplitReceipt out;
  const size_t at = signature_trailer_offset(file_bytes);
  for (size_t line = 0; line < file_bytes.size();) {
    if (line != at && file_bytes.compare(line, kSignatureTrailerPrefix.size(), kSignatureTrailerPrefix) == 0)
      return invalid_input("a signature trailer must be the last line of the receipt");
    const size_t newline = file_bytes.find('\n', line);
    line = newline == std::string::npos ? file_bytes.size() : newline + 1;
  }
  if (at == std::string::npos) {
    out.payload = file_bytes;
    return out;
  }
  std::string_view fields = std::string_view(file_bytes).substr(at + kSignatureTrailerPrefix.size());
  if (!fields.empty() && fields.back() == '\n') fields.remove_suffix(1);
  const std::string algorithm = std::string(kSignatureAlgorithm) + " ";
  if (fields.size() == algorithm.size() + 64 + 1 + 128 && fields.substr(0, algorithm.size()) == algorithm &&
      fields[algorithm.size() + 64] == ' ') {
    out.key_id = std::string(fields.substr(algorithm.size(), 64));
    out.signature_hex = std::string(fields.substr(algorithm.size() + 65));
  }
  if (!is_lower_hex(out.key_id, 64) || !is_lower_hex(out.signature_hex, 128))
    return invalid_input("malformed signature trailer (expected '# tesserac-signature ed25519 <key id: 64 lower-case "
                         "hex digits> <signature: 128 lower-case hex digits>')");
  out.payload = file_bytes.substr(0, at);
  out.has_trailer = true;
  return out;
}

Status verify_receipt_signature(const SplitReceipt& split, const TrustedKeys& keys) {
  if (!split.has_trailer) return invalid_input("receipt is not signed, and trusted keys were given");
  auto it = keys.by_id.find(split.key_id);
  if (it == keys.by_id.end())
    return invalid_input("receipt is signed by key " + split.key_id + ", which is not a trusted key");
  const std::vector<uint8_t> signature = from_lower_hex(split.signature_hex);
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, it->second.get()) != 1)
    return toolchain_error("OpenSSL could not verify with key " + split.key_id);
  if (EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                       reinterpret_cast<const uint8_t*>(split.payload.data()), split.payload.size()) != 1)
    return invalid_input("receipt signature by key " + split.key_id +
                         " does not verify: the receipt changed after it was signed, or the signature is not that key's");
  return ok();
}

}  // namespace tsr
