// AEAD over OpenSSL (AES-GCM) and libsodium (ChaCha20-Poly1305, XChaCha20-Poly1305).
#include "veil/crypto/aead.h"

#include <openssl/evp.h>
#include <sodium.h>

#include <climits>

#include "gcm_long_iv.h"
#include "openssl_util.h"
#include "veil/base/status.h"
#include "veil/crypto/random.h"

namespace veil::crypto {
namespace {

struct CipherCtxDeleter {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};

bool FitsInt(std::size_t n) { return n <= static_cast<std::size_t>(INT_MAX); }

}  // namespace

std::string_view AeadName(AeadAlg alg) {
  switch (alg) {
    case AeadAlg::kAes128Gcm:
      return "AES-128-GCM";
    case AeadAlg::kAes256Gcm:
      return "AES-256-GCM";
    case AeadAlg::kChaCha20Poly1305:
      return "ChaCha20-Poly1305";
    case AeadAlg::kXChaCha20Poly1305:
      return "XChaCha20-Poly1305";
  }
  return "unknown";
}

// ---- AES-GCM ----

struct AesGcm::Ctx {
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter> cipher{EVP_CIPHER_CTX_new()};
  std::size_t iv_len = 12;
  SecretBytes key;  // kept only to derive the GHASH key for IVs over kMaxIvSize
};

AesGcm::AesGcm() : ctx_(std::make_unique<Ctx>()) {}
AesGcm::~AesGcm() = default;
AesGcm::AesGcm(AesGcm&&) noexcept = default;
AesGcm& AesGcm::operator=(AesGcm&&) noexcept = default;

Result<AesGcm> AesGcm::Create(ByteView key) {
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
    return InvalidArgument("AES-GCM: key must be 16, 24 or 32 bytes");
  }
  AesGcm g;
  VEIL_CHECK(g.ctx_->cipher != nullptr);
  g.ctx_->key = SecretBytes::CopyFrom(key);
  // Key schedule once; later calls only set the IV and direction (a null key keeps this one).
  VEIL_CHECK(EVP_CipherInit_ex2(g.ctx_->cipher.get(), internal::AesGcmCipher(key.size()),
                                key.data(), nullptr, 1, nullptr) == 1);
  return g;
}

namespace {

// H = AES_K(0^128), the GHASH key, into the caller's h (not returned: a returned copy may be left
// in this frame).
void GhashKey(ByteView key, internal::Block& h) {
  h.fill(0);
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter> ecb(EVP_CIPHER_CTX_new());
  const char* name = key.size() == 16   ? "AES-128-ECB"
                     : key.size() == 24 ? "AES-192-ECB"
                                        : "AES-256-ECB";
  EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, name, nullptr);
  VEIL_CHECK(cipher != nullptr && ecb != nullptr);
  int len = 0;
  const bool ok = EVP_EncryptInit_ex2(ecb.get(), cipher, key.data(), nullptr, nullptr) == 1 &&
                  EVP_CIPHER_CTX_set_padding(ecb.get(), 0) == 1 &&
                  EVP_EncryptUpdate(ecb.get(), h.data(), &len, h.data(), 16) == 1;
  EVP_CIPHER_free(cipher);
  VEIL_CHECK(ok && len == 16);
}

Status AesGcmStart(EVP_CIPHER_CTX* c, std::size_t& current_iv_len, ByteView key, ByteView iv,
                   int enc) {
  if (iv.empty()) return InvalidArgument("AES-GCM: IV must not be empty");
  // Both wiped on every return: H is the GHASH key, and IV' with the long IV gives it away
  // (gcm_long_iv.h).
  struct Wiped {
    internal::Block h;
    internal::Block equivalent_iv;
    ~Wiped() { SecureWipe(this, sizeof *this); }
  } w;
  if (iv.size() > AesGcm::kMaxIvSize) {
    // OpenSSL keeps at most 128 IV bytes; SP 800-38D allows up to 2^64 bits. Map the long IV to
    // the 16-byte IV with the same pre-counter block (gcm_long_iv.h).
    GhashKey(key, w.h);
    internal::GcmEquivalentIv(w.h, iv, w.equivalent_iv);
    iv = w.equivalent_iv;
  }
  if (iv.size() != current_iv_len) {
    if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(iv.size()), nullptr) != 1) {
      return InvalidArgument("AES-GCM: unsupported IV length");
    }
    current_iv_len = iv.size();
  }
  VEIL_CHECK(EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, iv.data(), enc) == 1);
  return Status::Ok();
}

void AesGcmAad(EVP_CIPHER_CTX* c, ByteView aad) {
  int len = 0;
  if (!aad.empty()) {
    VEIL_CHECK(EVP_CipherUpdate(c, nullptr, &len, aad.data(), static_cast<int>(aad.size())) == 1);
  }
}

}  // namespace

Status AesGcm::Seal(ByteView iv, ByteView aad, ByteView plaintext, MutableByteView out) {
  VEIL_CHECK_MSG(ctx_ != nullptr, "AES-GCM: use of a moved-from object");
  if (!FitsInt(plaintext.size()) || !FitsInt(aad.size())) {
    return InvalidArgument("AES-GCM: input too long");
  }
  VEIL_CHECK(out.size() == plaintext.size() + kTagSize);
  EVP_CIPHER_CTX* c = ctx_->cipher.get();
  VEIL_RETURN_IF_ERROR(AesGcmStart(c, ctx_->iv_len, ctx_->key.Expose(), iv, 1));
  AesGcmAad(c, aad);
  int len = 0;
  if (!plaintext.empty()) {
    VEIL_CHECK(EVP_EncryptUpdate(c, out.data(), &len, plaintext.data(),
                                 static_cast<int>(plaintext.size())) == 1);
  }
  VEIL_CHECK(EVP_EncryptFinal_ex(c, out.data() + len, &len) == 1);
  VEIL_CHECK(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagSize),
                                 out.data() + plaintext.size()) == 1);
  return Status::Ok();
}

Status AesGcm::Open(ByteView iv, ByteView aad, ByteView ciphertext, MutableByteView out) {
  VEIL_CHECK_MSG(ctx_ != nullptr, "AES-GCM: use of a moved-from object");
  if (ciphertext.size() < kTagSize) return VerificationFailed();
  if (!FitsInt(ciphertext.size()) || !FitsInt(aad.size())) {
    return InvalidArgument("AES-GCM: input too long");
  }
  const std::size_t pt_len = ciphertext.size() - kTagSize;
  VEIL_CHECK(out.size() == pt_len);
  EVP_CIPHER_CTX* c = ctx_->cipher.get();
  VEIL_RETURN_IF_ERROR(AesGcmStart(c, ctx_->iv_len, ctx_->key.Expose(), iv, 0));
  AesGcmAad(c, aad);
  int len = 0;
  if (pt_len != 0) {
    VEIL_CHECK(
        EVP_DecryptUpdate(c, out.data(), &len, ciphertext.data(), static_cast<int>(pt_len)) == 1);
  }
  // EVP's tag control takes a non-const pointer but only reads it.
  VEIL_CHECK(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagSize),
                                 const_cast<std::uint8_t*>(ciphertext.data() + pt_len)) == 1);
  if (EVP_DecryptFinal_ex(c, out.data() + len, &len) != 1) {
    SecureWipe(out.data(), out.size());
    return VerificationFailed();
  }
  return Status::Ok();
}

// ---- Aead ----

Aead::Aead(AeadAlg alg) : alg_(alg) {}
Aead::~Aead() = default;
Aead::Aead(Aead&&) noexcept = default;
Aead& Aead::operator=(Aead&&) noexcept = default;

Result<Aead> Aead::Create(AeadAlg alg, ByteView key) {
  EnsureInitialized();
  if (key.size() != AeadKeySize(alg)) {
    return InvalidArgument(std::string(AeadName(alg)) + ": key must be " +
                           std::to_string(AeadKeySize(alg)) + " bytes");
  }
  Aead a(alg);
  if (alg == AeadAlg::kAes128Gcm || alg == AeadAlg::kAes256Gcm) {
    VEIL_ASSIGN_OR_RETURN(AesGcm g, AesGcm::Create(key));
    a.aes_ = std::make_unique<AesGcm>(std::move(g));
  } else {
    a.key_ = SecretBytes::CopyFrom(key);
  }
  return a;
}

void Aead::CheckNotMovedFrom() const {
  // A live object holds its key in one of the two; a moved-from one in neither.
  VEIL_CHECK_MSG(aes_ != nullptr || !key_.empty(), "AEAD: use of a moved-from object");
}

Status Aead::SealInto(ByteView nonce, ByteView aad, ByteView plaintext, MutableByteView out) {
  CheckNotMovedFrom();
  if (nonce.size() != nonce_size()) {
    return InvalidArgument(std::string(AeadName(alg_)) + ": nonce must be " +
                           std::to_string(nonce_size()) + " bytes");
  }
  if (out.size() != plaintext.size() + kAeadTagSize) {
    return InvalidArgument("AEAD: output buffer has the wrong size");
  }
  switch (alg_) {
    case AeadAlg::kAes128Gcm:
    case AeadAlg::kAes256Gcm:
      return aes_->Seal(nonce, aad, plaintext, out);
    case AeadAlg::kChaCha20Poly1305:
      crypto_aead_chacha20poly1305_ietf_encrypt(out.data(), nullptr, plaintext.data(),
                                                plaintext.size(), aad.data(), aad.size(), nullptr,
                                                nonce.data(), key_.Expose().data());
      return Status::Ok();
    case AeadAlg::kXChaCha20Poly1305:
      crypto_aead_xchacha20poly1305_ietf_encrypt(out.data(), nullptr, plaintext.data(),
                                                 plaintext.size(), aad.data(), aad.size(), nullptr,
                                                 nonce.data(), key_.Expose().data());
      return Status::Ok();
  }
  return Internal("unknown AEAD");
}

Result<Bytes> Aead::Seal(ByteView nonce, ByteView aad, ByteView plaintext) {
  Bytes out(plaintext.size() + kAeadTagSize);
  VEIL_RETURN_IF_ERROR(SealInto(nonce, aad, plaintext, out));
  return out;
}

Status Aead::OpenInto(ByteView nonce, ByteView aad, ByteView ciphertext, MutableByteView out) {
  CheckNotMovedFrom();
  if (nonce.size() != nonce_size()) {
    return InvalidArgument(std::string(AeadName(alg_)) + ": nonce must be " +
                           std::to_string(nonce_size()) + " bytes");
  }
  if (ciphertext.size() < kAeadTagSize) return VerificationFailed();
  if (out.size() != ciphertext.size() - kAeadTagSize) {
    return InvalidArgument("AEAD: output buffer has the wrong size");
  }
  int rc = -1;
  switch (alg_) {
    case AeadAlg::kAes128Gcm:
    case AeadAlg::kAes256Gcm:
      return aes_->Open(nonce, aad, ciphertext, out);
    case AeadAlg::kChaCha20Poly1305:
      rc = crypto_aead_chacha20poly1305_ietf_decrypt(
          out.data(), nullptr, nullptr, ciphertext.data(), ciphertext.size(), aad.data(),
          aad.size(), nonce.data(), key_.Expose().data());
      break;
    case AeadAlg::kXChaCha20Poly1305:
      rc = crypto_aead_xchacha20poly1305_ietf_decrypt(
          out.data(), nullptr, nullptr, ciphertext.data(), ciphertext.size(), aad.data(),
          aad.size(), nonce.data(), key_.Expose().data());
      break;
  }
  if (rc != 0) {
    SecureWipe(out.data(), out.size());
    return VerificationFailed();
  }
  return Status::Ok();
}

Result<SecretBytes> Aead::Open(ByteView nonce, ByteView aad, ByteView ciphertext) {
  if (ciphertext.size() < kAeadTagSize) return VerificationFailed();
  SecretBytes out(ciphertext.size() - kAeadTagSize);
  VEIL_RETURN_IF_ERROR(OpenInto(nonce, aad, ciphertext, out.ExposeMutable()));
  return out;
}

}  // namespace veil::crypto
