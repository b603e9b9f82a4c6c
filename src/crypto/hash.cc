// SHA-2 over OpenSSL EVP with fetched digests and per-thread contexts.
#include "veil/crypto/hash.h"

#include <openssl/evp.h>

#include "openssl_util.h"
#include "veil/base/status.h"

namespace veil::crypto {
namespace internal {

const char* MdName(HashAlg alg) {
  switch (alg) {
    case HashAlg::kSha256:
      return "SHA2-256";
    case HashAlg::kSha384:
      return "SHA2-384";
    case HashAlg::kSha512:
      return "SHA2-512";
  }
  return "SHA2-256";
}

const EVP_MD* Md(HashAlg alg) {
  static const EVP_MD* const kMds[3] = {
      EVP_MD_fetch(nullptr, "SHA2-256", nullptr),
      EVP_MD_fetch(nullptr, "SHA2-384", nullptr),
      EVP_MD_fetch(nullptr, "SHA2-512", nullptr),
  };
  const EVP_MD* md = kMds[static_cast<int>(alg)];
  VEIL_CHECK_MSG(md != nullptr, "OpenSSL has no SHA-2 digest");
  return md;
}

const EVP_CIPHER* AesGcmCipher(std::size_t key_size) {
  static const EVP_CIPHER* const kCiphers[3] = {
      EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr),
      EVP_CIPHER_fetch(nullptr, "AES-192-GCM", nullptr),
      EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr),
  };
  VEIL_CHECK(key_size == 16 || key_size == 24 || key_size == 32);
  const EVP_CIPHER* c = kCiphers[(key_size - 16) / 8];
  VEIL_CHECK_MSG(c != nullptr, "OpenSSL has no AES-GCM");
  return c;
}

}  // namespace internal

namespace {

struct CtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

EVP_MD_CTX* ThreadCtx() {
  thread_local std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
  VEIL_CHECK(ctx != nullptr);
  return ctx.get();
}

}  // namespace

struct Sha2::Ctx {
  std::unique_ptr<EVP_MD_CTX, CtxDeleter> md_ctx{EVP_MD_CTX_new()};
};

Sha2::Sha2(HashAlg alg) : alg_(alg), ctx_(std::make_unique<Ctx>()) { Reset(); }
Sha2::~Sha2() = default;
Sha2::Sha2(Sha2&&) noexcept = default;
Sha2& Sha2::operator=(Sha2&&) noexcept = default;

void Sha2::CheckUsable() const {
  VEIL_CHECK_MSG(ctx_ != nullptr, "SHA-2: use of a moved-from object");
  VEIL_CHECK_MSG(!finished_, "SHA-2: Update or Final after Final; call Reset first");
}

void Sha2::Reset() {
  VEIL_CHECK_MSG(ctx_ != nullptr, "SHA-2: use of a moved-from object");
  VEIL_CHECK(ctx_->md_ctx != nullptr);
  VEIL_CHECK(EVP_DigestInit_ex2(ctx_->md_ctx.get(), internal::Md(alg_), nullptr) == 1);
  finished_ = false;
}

Sha2& Sha2::Update(ByteView data) {
  CheckUsable();
  VEIL_CHECK(EVP_DigestUpdate(ctx_->md_ctx.get(), data.data(), data.size()) == 1);
  return *this;
}

void Sha2::Final(MutableByteView out) {
  CheckUsable();
  VEIL_CHECK(out.size() == DigestSize(alg_));
  VEIL_CHECK(EVP_DigestFinal_ex(ctx_->md_ctx.get(), out.data(), nullptr) == 1);
  finished_ = true;
}

Bytes Sha2::Final() {
  Bytes out(DigestSize(alg_));
  Final(out);
  return out;
}

void Hash(HashAlg alg, ByteView data, MutableByteView out) {
  VEIL_CHECK(out.size() == DigestSize(alg));
  EVP_MD_CTX* ctx = ThreadCtx();
  VEIL_CHECK(EVP_DigestInit_ex2(ctx, internal::Md(alg), nullptr) == 1);
  VEIL_CHECK(EVP_DigestUpdate(ctx, data.data(), data.size()) == 1);
  VEIL_CHECK(EVP_DigestFinal_ex(ctx, out.data(), nullptr) == 1);
}

Bytes Hash(HashAlg alg, ByteView data) {
  Bytes out(DigestSize(alg));
  Hash(alg, data, out);
  return out;
}

Sha256Digest Sha256(ByteView data) {
  Sha256Digest d;
  Hash(HashAlg::kSha256, data, d);
  return d;
}

Sha512Digest Sha512(ByteView data) {
  Sha512Digest d;
  Hash(HashAlg::kSha512, data, d);
  return d;
}

}  // namespace veil::crypto
