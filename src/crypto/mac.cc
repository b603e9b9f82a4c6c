// HMAC over OpenSSL EVP_MAC; the keyed context is re-initialised with a null key to reuse it.
#include "veil/crypto/mac.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "openssl_util.h"
#include "veil/base/status.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {
namespace {

EVP_MAC* HmacAlgorithm() {
  static EVP_MAC* const kMac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  VEIL_CHECK_MSG(kMac != nullptr, "OpenSSL has no HMAC");
  return kMac;
}

struct MacCtxDeleter {
  void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
};

}  // namespace

struct Hmac::Ctx {
  std::unique_ptr<EVP_MAC_CTX, MacCtxDeleter> mac{EVP_MAC_CTX_new(HmacAlgorithm())};
};

Hmac::Hmac(HashAlg alg, ByteView key) : alg_(alg), ctx_(std::make_unique<Ctx>()) {
  VEIL_CHECK(ctx_->mac != nullptr);
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(
                             OSSL_MAC_PARAM_DIGEST, const_cast<char*>(internal::MdName(alg)), 0),
                         OSSL_PARAM_construct_end()};
  // OpenSSL refuses a null key pointer even for an empty key.
  static const std::uint8_t kEmpty[1] = {0};
  const std::uint8_t* key_ptr = key.empty() ? kEmpty : key.data();
  VEIL_CHECK(EVP_MAC_init(ctx_->mac.get(), key_ptr, key.size(), params) == 1);
}

Hmac::~Hmac() = default;
Hmac::Hmac(Hmac&&) noexcept = default;
Hmac& Hmac::operator=(Hmac&&) noexcept = default;

Hmac& Hmac::Update(ByteView data) {
  VEIL_CHECK_MSG(ctx_ != nullptr, "HMAC: use of a moved-from object");
  VEIL_CHECK(EVP_MAC_update(ctx_->mac.get(), data.data(), data.size()) == 1);
  return *this;
}

void Hmac::Final(MutableByteView tag) {
  VEIL_CHECK_MSG(ctx_ != nullptr, "HMAC: use of a moved-from object");
  VEIL_CHECK(tag.size() == tag_size());
  std::size_t written = 0;
  VEIL_CHECK(EVP_MAC_final(ctx_->mac.get(), tag.data(), &written, tag.size()) == 1);
  VEIL_CHECK(written == tag.size());
  // A null key keeps the one already set: the next message starts under the same key.
  VEIL_CHECK(EVP_MAC_init(ctx_->mac.get(), nullptr, 0, nullptr) == 1);
}

Bytes Hmac::Final() {
  Bytes tag(tag_size());
  Final(tag);
  return tag;
}

Bytes Hmac::Mac(ByteView data) {
  Update(data);
  return Final();
}

Status Hmac::Verify(ByteView data, ByteView tag) { return VerifyTruncated(data, tag, tag_size()); }

Status Hmac::VerifyTruncated(ByteView data, ByteView tag, std::size_t expected_len) {
  VEIL_CHECK_MSG(expected_len >= kMinTruncatedTagSize && expected_len <= tag_size(),
                 "HMAC: a truncated tag must keep 16 bytes up to the full length");
  // The expected tag is a valid tag for `data`: wiped, since whoever reads it can forge.
  Secret<64> expected;
  const MutableByteView full = expected.ExposeMutable().first(tag_size());
  Update(data).Final(full);
  // The lengths are public: the protocol fixes expected_len and the tag arrived with its own.
  if (tag.size() != expected_len) return VerificationFailed();
  if (!ConstantTimeEquals(full.first(expected_len), tag)) return VerificationFailed();
  return Status::Ok();
}

Bytes HmacSha256(ByteView key, ByteView data) { return Hmac(HashAlg::kSha256, key).Mac(data); }
Bytes HmacSha512(ByteView key, ByteView data) { return Hmac(HashAlg::kSha512, key).Mac(data); }

}  // namespace veil::crypto
