// TLS material: PEM loading and checking, self-signed certificates, SHA-256 fingerprints
// (OpenSSL 3).
#include "veil/net/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "ssl_util.h"

namespace veil::net {
namespace {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in.good() && !in.eof()) return Internal("cannot read " + path);
  return ss.str();
}

}  // namespace

Result<TlsCredentials> LoadTlsCredentials(const std::string& cert_path,
                                          const std::string& key_path) {
  VEIL_ASSIGN_OR_RETURN(std::string cert, ReadFile(cert_path));
  VEIL_ASSIGN_OR_RETURN(std::string key, ReadFile(key_path));
  TlsCredentials creds{std::move(cert),
                       crypto::SecretBytes::CopyFrom(ByteView(
                           reinterpret_cast<const std::uint8_t*>(key.data()), key.size()))};
  crypto::SecureWipe(key.data(), key.size());
  VEIL_RETURN_IF_ERROR(ValidateTlsCredentials(creds));
  return creds;
}

Status ValidateTlsCredentials(const TlsCredentials& credentials) {
  VEIL_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(credentials.cert_pem));
  VEIL_ASSIGN_OR_RETURN(PkeyPtr key, ParsePrivateKey(credentials.key_pem));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return InvalidArgument("TLS private key does not match the certificate");
  }
  return Status::Ok();
}

Result<SelfSignedCertificate> GenerateSelfSignedCertificate(std::string common_name,
                                                            std::vector<std::string> names,
                                                            int valid_days) {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Internal("cannot generate a P-256 key: " + TakeOpenSslError());
  X509Ptr cert(X509_new());
  if (!cert) return Internal("X509_new failed");
  bool ok = X509_set_version(cert.get(), 2) == 1;
  // A random 127-bit serial, as RFC 5280 asks for unpredictable serials.
  std::unique_ptr<BIGNUM, decltype(&BN_free)> serial(BN_new(), BN_free);
  ok = ok && serial && BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
       BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) != nullptr;
  ok = ok && X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr &&
       X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400L * valid_days) != nullptr;
  X509_NAME* name = X509_get_subject_name(cert.get());
  ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                        reinterpret_cast<const unsigned char*>(common_name.c_str()),
                                        -1, -1, 0) == 1;
  ok = ok && X509_set_issuer_name(cert.get(), name) == 1 && X509_set_pubkey(cert.get(), key.get());
  if (!ok) return Internal("cannot build the certificate: " + TakeOpenSslError());

  std::string san;
  for (const auto& n : names) {
    bool is_ip =
        n.find_first_not_of("0123456789.") == std::string::npos || n.find(':') != std::string::npos;
    if (!san.empty()) san += ',';
    san += (is_ip ? "IP:" : "DNS:") + n;
  }
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::pair<int, std::string> extensions[] = {
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature"},
      {NID_ext_key_usage, "serverAuth"},
      {NID_subject_alt_name, san},
  };
  for (const auto& [nid, value] : extensions) {
    if (value.empty()) continue;
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return InvalidArgument("bad certificate extension: " + TakeOpenSslError());
    int added = X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
    if (added != 1) return Internal("cannot add a certificate extension");
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) {
    return Internal("cannot sign the certificate: " + TakeOpenSslError());
  }

  SelfSignedCertificate out;
  VEIL_ASSIGN_OR_RETURN(out.credentials.cert_pem, CertificateToPem(cert.get()));
  VEIL_ASSIGN_OR_RETURN(out.credentials.key_pem, PrivateKeyToPem(key.get()));
  VEIL_ASSIGN_OR_RETURN(out.sha256_fingerprint, Fingerprint(cert.get()));
  return out;
}

Result<std::string> CertificateSha256Fingerprint(std::string_view cert_pem) {
  VEIL_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(cert_pem));
  return Fingerprint(cert.get());
}

Result<std::string> NormalizeFingerprint(std::string_view fingerprint) {
  std::string out;
  for (char c : fingerprint) {
    if (c == ':') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return InvalidArgument("a SHA-256 fingerprint is 64 hex digits");
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (out.size() != 64) return InvalidArgument("a SHA-256 fingerprint is 64 hex digits");
  return out;
}

}  // namespace veil::net
