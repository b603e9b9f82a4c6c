// OpenSSL helpers for net/ (see ssl_util.h).
#include "ssl_util.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <array>

#include "veil/base/encoding.h"

namespace veil::net {
namespace {

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

BioPtr MemBio(const void* data, std::size_t size) {
  return BioPtr(BIO_new_mem_buf(data, static_cast<int>(size)));
}

std::string BioContents(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

std::string TakeOpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown error";
  std::array<char, 256> buf{};
  ERR_error_string_n(e, buf.data(), buf.size());
  ERR_clear_error();
  return buf.data();
}

Result<X509Ptr> ParseCertificate(std::string_view pem) {
  BioPtr bio = MemBio(pem.data(), pem.size());
  if (!bio) return Internal("BIO_new_mem_buf failed");
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) {
    ERR_clear_error();
    return InvalidArgument("certificate is not a PEM X.509 certificate");
  }
  return cert;
}

Result<PkeyPtr> ParsePrivateKey(const crypto::SecretBytes& pem) {
  ByteView b = pem.Expose();
  BioPtr bio = MemBio(b.data(), b.size());
  if (!bio) return Internal("BIO_new_mem_buf failed");
  // An empty passphrase callback: encrypted keys fail instead of prompting on the terminal.
  PkeyPtr key(PEM_read_bio_PrivateKey(
      bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr));
  if (!key) {
    ERR_clear_error();
    // Deliberately says nothing about the bytes: they are a secret.
    return InvalidArgument("private key is not an unencrypted PEM private key");
  }
  return key;
}

Result<std::string> CertificateToPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return Internal("cannot encode certificate: " + TakeOpenSslError());
  }
  return BioContents(bio.get());
}

Result<crypto::SecretBytes> PrivateKeyToPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return Internal("cannot encode private key: " + TakeOpenSslError());
  }
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  if (n <= 0) return Internal("cannot encode private key");
  auto out = crypto::SecretBytes::CopyFrom(
      ByteView(reinterpret_cast<const std::uint8_t*>(data), static_cast<std::size_t>(n)));
  crypto::SecureWipe(data, static_cast<std::size_t>(n));
  return out;
}

Result<std::string> Fingerprint(X509* cert) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  if (X509_digest(cert, EVP_sha256(), md.data(), &len) != 1 || len != 32) {
    return Internal("cannot hash certificate: " + TakeOpenSslError());
  }
  return HexEncode(ByteView(md.data(), len));
}

Status ConfigureServerContext(SSL_CTX* ctx, const std::string& cert_pem,
                              const crypto::SecretBytes& key_pem) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    return Internal("cannot set the TLS version floor");
  }
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  BioPtr bio = MemBio(cert_pem.data(), cert_pem.size());
  if (!bio) return Internal("BIO_new_mem_buf failed");
  X509Ptr leaf(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!leaf) {
    ERR_clear_error();
    return InvalidArgument("TLS certificate is not a PEM X.509 certificate");
  }
  if (SSL_CTX_use_certificate(ctx, leaf.get()) != 1) {
    return InvalidArgument("TLS certificate rejected: " + TakeOpenSslError());
  }
  // Any further certificates in the PEM are the chain.
  while (X509* extra = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) {
      X509_free(extra);
      return InvalidArgument("TLS chain certificate rejected: " + TakeOpenSslError());
    }
  }
  ERR_clear_error();  // the loop ends on a "no start line" error
  VEIL_ASSIGN_OR_RETURN(PkeyPtr key, ParsePrivateKey(key_pem));
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    return InvalidArgument("TLS private key does not match the certificate");
  }
  return Status::Ok();
}

}  // namespace veil::net
