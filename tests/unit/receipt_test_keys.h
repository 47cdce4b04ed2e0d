// Ed25519 (and, for refusals, EC) keys made at test time with OpenSSL and
// written as PEM, for the receipt signature tests: no key is checked in.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "receipts/receipt_signature.h"
#include "support/sha256.h"

namespace tsr::testing {

namespace fs = std::filesystem;

// A fresh key of `type` ("ED25519", or "EC" for a key of the wrong kind),
// written as PEM: private.pem (PKCS#8) and public.pem (SubjectPublicKeyInfo).
struct TestKey {
  fs::path dir, private_pem, public_pem;
  std::string private_text, public_text, raw_public_hex, raw_private_hex;

  explicit TestKey(const std::string& tag, const char* type = "ED25519") {
    dir = fs::path(::testing::TempDir()) / ("tsr-sig-" + tag + "-" + std::to_string(getpid()));
    fs::create_directories(dir);
    private_pem = dir / "private.pem";
    public_pem = dir / "public.pem";
    EVP_PKEY* key = std::string(type) == "EC" ? EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")
                                              : EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    BIO* priv = BIO_new(BIO_s_mem());
    BIO* pub = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(priv, key, nullptr, nullptr, 0, nullptr, nullptr);
    PEM_write_bio_PUBKEY(pub, key);
    private_text = drain(priv);
    public_text = drain(pub);
    if (std::string(type) == "ED25519") {
      uint8_t raw[32];
      size_t len = sizeof raw;
      EVP_PKEY_get_raw_public_key(key, raw, &len);
      raw_public_hex = to_hex(raw, len);
      len = sizeof raw;
      EVP_PKEY_get_raw_private_key(key, raw, &len);
      raw_private_hex = to_hex(raw, len);
    }
    EVP_PKEY_free(key);
    std::ofstream(private_pem) << private_text;
    std::ofstream(public_pem) << public_text;
  }
  ~TestKey() { fs::remove_all(dir); }

  static std::string drain(BIO* b) {
    char* data = nullptr;
    long n = BIO_get_mem_data(b, &data);
    std::string s(data, size_t(n));
    BIO_free(b);
    return s;
  }
  std::shared_ptr<SigningKey> signing() const { return *load_signing_key(private_pem.string()); }
  std::shared_ptr<TrustedKeys> trusted() const { return *load_trusted_keys(public_pem.string()); }
};

}  // namespace tsr::testing
