// Authenticated encryption with associated data: one interface over four algorithms.
//
//   AES-128-GCM, AES-256-GCM        OpenSSL EVP (AES-NI + PCLMUL at run time); the key schedule is
//                                   computed once per Aead object and reused for every message.
//   ChaCha20-Poly1305 (IETF)        libsodium
//   XChaCha20-Poly1305 (IETF)       libsodium; 24-byte nonces, safe to pick at random.
//
// Seal returns ciphertext || 16-byte tag. Open checks the tag before releasing anything: a wrong
// key, nonce, associated data or a modified ciphertext is VerificationFailed() and no plaintext.
// AesGcm below is the general AES-GCM (any IV length, AES-192 too) that conformance vectors need;
// new code uses Aead with its standard 12-byte nonces.
//
// A moved-from Aead or AesGcm aborts when used.
//
// Thread safety: an Aead or AesGcm object holds a cipher context; use one object per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

enum class AeadAlg : std::uint8_t {
  kAes128Gcm,
  kAes256Gcm,
  kChaCha20Poly1305,
  kXChaCha20Poly1305,
};

std::string_view AeadName(AeadAlg alg);
constexpr std::size_t AeadKeySize(AeadAlg alg) { return alg == AeadAlg::kAes128Gcm ? 16 : 32; }
constexpr std::size_t AeadNonceSize(AeadAlg alg) {
  return alg == AeadAlg::kXChaCha20Poly1305 ? 24 : 12;
}
inline constexpr std::size_t kAeadTagSize = 16;

class AesGcm {
 public:
  static constexpr std::size_t kTagSize = 16;
  static constexpr std::size_t kMaxIvSize = 128;  // longer IVs take the equivalent-IV path
  // key: 16, 24 or 32 bytes.
  static Result<AesGcm> Create(ByteView key);
  ~AesGcm();
  AesGcm(AesGcm&&) noexcept;
  AesGcm& operator=(AesGcm&&) noexcept;
  AesGcm(const AesGcm&) = delete;
  AesGcm& operator=(const AesGcm&) = delete;

  // iv: any non-zero length (12 is the standard size; others go through GHASH). out: pt.size()
  // + 16.
  Status Seal(ByteView iv, ByteView aad, ByteView plaintext, MutableByteView out);
  // out: ct.size() - 16 bytes; wiped on failure.
  Status Open(ByteView iv, ByteView aad, ByteView ciphertext, MutableByteView out);

 private:
  AesGcm();
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

class Aead {
 public:
  static Result<Aead> Create(AeadAlg alg, ByteView key);
  ~Aead();
  Aead(Aead&&) noexcept;
  Aead& operator=(Aead&&) noexcept;
  Aead(const Aead&) = delete;
  Aead& operator=(const Aead&) = delete;

  AeadAlg alg() const { return alg_; }
  std::size_t nonce_size() const { return AeadNonceSize(alg_); }

  // Returns ciphertext || tag. The nonce must never repeat under one key.
  Result<Bytes> Seal(ByteView nonce, ByteView aad, ByteView plaintext);
  Status SealInto(ByteView nonce, ByteView aad, ByteView plaintext, MutableByteView out);
  Result<SecretBytes> Open(ByteView nonce, ByteView aad, ByteView ciphertext);
  Status OpenInto(ByteView nonce, ByteView aad, ByteView ciphertext, MutableByteView out);

 private:
  explicit Aead(AeadAlg alg);
  void CheckNotMovedFrom() const;
  AeadAlg alg_;
  SecretBytes key_;              // ChaCha variants
  std::unique_ptr<AesGcm> aes_;  // AES variants
};

}  // namespace veil::crypto
