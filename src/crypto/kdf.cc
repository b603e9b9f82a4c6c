// HKDF over OpenSSL's EVP_KDF "HKDF" in its extract-only and expand-only modes.
#include "veil/crypto/kdf.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "openssl_util.h"
#include "veil/base/status.h"

namespace veil::crypto {
namespace {

struct KdfCtxDeleter {
  void operator()(EVP_KDF_CTX* c) const { EVP_KDF_CTX_free(c); }
};

EVP_KDF* HkdfAlgorithm() {
  static EVP_KDF* const kKdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  VEIL_CHECK_MSG(kKdf != nullptr, "OpenSSL has no HKDF");
  return kKdf;
}

// OpenSSL wants non-null pointers even for empty octet strings.
void* Ptr(ByteView b) {
  static std::uint8_t empty[1] = {0};
  return b.empty() ? empty : const_cast<std::uint8_t*>(b.data());
}

void Derive(HashAlg alg, int mode, ByteView salt, ByteView key, ByteView info,
            MutableByteView out) {
  std::unique_ptr<EVP_KDF_CTX, KdfCtxDeleter> ctx(EVP_KDF_CTX_new(HkdfAlgorithm()));
  VEIL_CHECK(ctx != nullptr);
  OSSL_PARAM params[6];
  int n = 0;
  params[n++] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
  params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
                                                 const_cast<char*>(internal::MdName(alg)), 0);
  params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, Ptr(key), key.size());
  if (mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY) {
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, Ptr(salt), salt.size());
  }
  if (mode != EVP_KDF_HKDF_MODE_EXTRACT_ONLY) {
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, Ptr(info), info.size());
  }
  params[n] = OSSL_PARAM_construct_end();
  VEIL_CHECK(EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) == 1);
}

}  // namespace

SecretBytes HkdfExtract(HashAlg alg, ByteView salt, ByteView ikm) {
  SecretBytes prk(DigestSize(alg));
  // An empty salt is HashLen zeros (RFC 5869 2.2); HMAC pads a short key with zeros, so passing
  // it explicitly gives the same key block.
  std::uint8_t zeros[64] = {};
  ByteView s = salt.empty() ? ByteView(zeros, DigestSize(alg)) : salt;
  Derive(alg, EVP_KDF_HKDF_MODE_EXTRACT_ONLY, s, ikm, {}, prk.ExposeMutable());
  return prk;
}

Result<SecretBytes> HkdfExpand(HashAlg alg, ByteView prk, ByteView info, std::size_t length) {
  if (length == 0 || length > 255 * DigestSize(alg)) {
    return InvalidArgument("HKDF: output length must be 1.." +
                           std::to_string(255 * DigestSize(alg)) + " bytes");
  }
  if (prk.size() < DigestSize(alg)) return InvalidArgument("HKDF: PRK shorter than HashLen");
  SecretBytes okm(length);
  Derive(alg, EVP_KDF_HKDF_MODE_EXPAND_ONLY, {}, prk, info, okm.ExposeMutable());
  return okm;
}

Result<SecretBytes> Hkdf(HashAlg alg, ByteView salt, ByteView ikm, ByteView info,
                         std::size_t length) {
  SecretBytes prk = HkdfExtract(alg, salt, ikm);
  return HkdfExpand(alg, prk.Expose(), info, length);
}

}  // namespace veil::crypto
