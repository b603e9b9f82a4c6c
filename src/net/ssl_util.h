// Internal: OpenSSL ownership helpers and PEM/DER conversions shared by tls.cc, the server and
// the client. Not a public header.
//
// Thread safety: pure functions; OpenSSL 3 is thread-safe for these calls.
#pragma once

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>

#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::net {

struct X509Deleter {
  void operator()(X509* p) const { X509_free(p); }
};
struct PkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

// The text of OpenSSL's error queue (emptied), or "unknown error".
std::string TakeOpenSslError();

Result<X509Ptr> ParseCertificate(std::string_view pem);
Result<PkeyPtr> ParsePrivateKey(const crypto::SecretBytes& pem);
Result<std::string> CertificateToPem(X509* cert);
Result<crypto::SecretBytes> PrivateKeyToPem(EVP_PKEY* key);
// Lowercase hex SHA-256 of the DER encoding.
Result<std::string> Fingerprint(X509* cert);

// Loads the leaf, any chain certificates and the key into a server context, with TLS 1.2 as the
// floor.
Status ConfigureServerContext(SSL_CTX* ctx, const std::string& cert_pem,
                              const crypto::SecretBytes& key_pem);

}  // namespace veil::net
