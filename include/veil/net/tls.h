// TLS material for the HTTP server and client: certificates and keys in PEM, an in-memory
// self-signed certificate for tests and development, and the SHA-256 fingerprint a client pins.
//
// The private key travels as crypto::SecretBytes (wiped on destruction, never printed). The
// fingerprint of a certificate is SHA-256 over its DER encoding, as lowercase hex (64 digits);
// `openssl x509 -in cert.pem -noout -fingerprint -sha256` prints the same bytes with colons.
//
// Thread safety: values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::net {

struct TlsCredentials {
  std::string cert_pem;         // the leaf certificate first, then any chain
  crypto::SecretBytes key_pem;  // the leaf's private key (unencrypted PEM)

  TlsCredentials Clone() const { return {cert_pem, key_pem.Clone()}; }
};

// Reads both files; kNotFound when one is missing, kInvalidArgument when the PEM does not parse
// or the key does not match the certificate.
Result<TlsCredentials> LoadTlsCredentials(const std::string& cert_path,
                                          const std::string& key_path);

// Checks that the PEM parses and that the key belongs to the leaf certificate.
Status ValidateTlsCredentials(const TlsCredentials& credentials);

struct SelfSignedCertificate {
  TlsCredentials credentials;
  std::string sha256_fingerprint;  // lowercase hex of SHA-256(DER), what a client pins
};

// A fresh ECDSA P-256 key and a self-signed X.509 v3 certificate for `common_name`, valid from
// one hour ago for `valid_days` days, with subjectAltNames: every entry of `names` that parses as
// an IP address becomes an IP SAN, the others DNS SANs. For tests and development.
Result<SelfSignedCertificate> GenerateSelfSignedCertificate(
    std::string common_name = "localhost",
    std::vector<std::string> names = {"localhost", "127.0.0.1", "::1"}, int valid_days = 30);

// Fingerprint of the first certificate in `cert_pem`.
Result<std::string> CertificateSha256Fingerprint(std::string_view cert_pem);

// Accepts 64 hex digits with or without ':' separators, any case; returns lowercase hex.
Result<std::string> NormalizeFingerprint(std::string_view fingerprint);

}  // namespace veil::net
