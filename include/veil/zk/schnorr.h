// Schnorr signatures over ristretto255 (docs/notes/sigma.md, "Schnorr signatures").
//
// Keys: a secret scalar x != 0 and the public point A = x B. Signing: nonce k, R = k B,
// c = challenge from the transcript "veil.zk.schnorr" v1 over (A, message, R), s = k + c x.
// The signature is R's canonical encoding || s canonical (64 bytes). Verification checks
// R = s B - c A with DoubleScalarMulBasepointVartime and compares encodings; batch verification
// checks sum w_i (s_i B - R_i - c_i A_i) = 0 with random 128-bit w_i and one multi-scalar
// multiplication.
//
// Nonces are deterministic-hedged: k is squeezed from a TranscriptRng forked from the signing
// transcript after A and the message, that absorbs the secret key and 32 fresh random bytes
// (BIP-340's aux_rand idea through Merlin's construction). With a broken RNG the nonce is still a
// function of (key, message), so it never repeats across messages; with a good RNG, signatures
// are randomised, which blunts fault attacks on a fixed (key, message).
//
// Decoding is strict: a public key must be a canonical encoding of a non-identity element; a
// signature exactly 64 bytes, R a canonical encoding of an element, s < l. A secret key is a
// canonical non-zero scalar.
//
// Constant time: key generation and signing are constant time in the secret key and the nonce;
// verification is variable time (public data). SchnorrSigningKey wipes its scalar on destruction.
//
// Thread safety: keys and signatures are values; a const SchnorrSigningKey may sign from several
// threads at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::zk {

inline constexpr std::string_view kSchnorrProtocol = "veil.zk.schnorr";
inline constexpr std::uint64_t kSchnorrVersion = 1;
inline constexpr std::size_t kSchnorrSignatureSize = 64;
inline constexpr std::size_t kSchnorrPublicKeySize = 32;
inline constexpr std::size_t kSchnorrSecretKeySize = 32;

class SchnorrPublicKey {
 public:
  // A canonical encoding of a non-identity element; kInvalidArgument otherwise.
  static Result<SchnorrPublicKey> Decode(ByteView bytes);
  // kInvalidArgument for the identity.
  static Result<SchnorrPublicKey> FromPoint(const ec::RistrettoPoint& point);

  const ec::CompressedRistretto& encoding() const { return encoding_; }
  const ec::RistrettoPoint& point() const { return point_; }
  const ec::CompressedRistretto::Bytes& Encode() const { return encoding_.bytes(); }

  friend bool operator==(const SchnorrPublicKey& a, const SchnorrPublicKey& b) {
    return a.encoding_ == b.encoding_;
  }

 private:
  friend class SchnorrSigningKey;
  SchnorrPublicKey(const ec::CompressedRistretto& e, const ec::RistrettoPoint& p)
      : encoding_(e), point_(p) {}
  ec::CompressedRistretto encoding_;
  ec::RistrettoPoint point_;
};

class SchnorrSignature {
 public:
  using Bytes = std::array<std::uint8_t, kSchnorrSignatureSize>;

  // Exactly 64 bytes: R canonical and a valid element, s < l; kInvalidArgument otherwise.
  static Result<SchnorrSignature> Decode(ByteView bytes);
  Bytes Encode() const;

  const ec::CompressedRistretto& R() const { return r_encoding_; }
  const ec::RistrettoPoint& RPoint() const { return r_point_; }
  const ec::Scalar& s() const { return s_; }

 private:
  friend struct SchnorrInternal;
  SchnorrSignature(const ec::CompressedRistretto& r, const ec::RistrettoPoint& r_point,
                   const ec::Scalar& s)
      : r_encoding_(r), r_point_(r_point), s_(s) {}
  ec::CompressedRistretto r_encoding_;
  ec::RistrettoPoint r_point_;
  ec::Scalar s_;
};

class SchnorrSigningKey {
 public:
  static SchnorrSigningKey Generate();
  // A canonical non-zero scalar (32 bytes little-endian); kInvalidArgument otherwise. Constant
  // time in the value.
  static Result<SchnorrSigningKey> FromBytes(ByteView secret);

  SchnorrSigningKey(SchnorrSigningKey&& o) noexcept : x_(o.x_), public_key_(o.public_key_) {
    o.x_.Wipe();
  }
  SchnorrSigningKey& operator=(SchnorrSigningKey&& o) noexcept;
  SchnorrSigningKey(const SchnorrSigningKey&) = delete;
  SchnorrSigningKey& operator=(const SchnorrSigningKey&) = delete;
  ~SchnorrSigningKey() { x_.Wipe(); }
  SchnorrSigningKey Clone() const { return SchnorrSigningKey(x_, public_key_); }

  const SchnorrPublicKey& public_key() const { return public_key_; }
  crypto::Secret<kSchnorrSecretKeySize> ToBytes() const;
  // The secret scalar itself, for the protocols of this floor built on the key (adaptor
  // signatures); every use is a place where the secret flows.
  const ec::Scalar& ExposeSecretScalar() const { return x_; }

  SchnorrSignature Sign(ByteView message) const;
  // With the nonce randomness given: known-answer tests, and deterministic signing (all-zero
  // randomness is safe, see above).
  SchnorrSignature SignWithRandomness(ByteView message,
                                      std::span<const std::uint8_t, 32> randomness) const;

 private:
  SchnorrSigningKey(const ec::Scalar& x, const SchnorrPublicKey& pk) : x_(x), public_key_(pk) {}
  static SchnorrSigningKey FromScalar(const ec::Scalar& x);
  ec::Scalar x_;
  SchnorrPublicKey public_key_;
};

// Ok, or VerificationFailed().
Status SchnorrVerify(const SchnorrPublicKey& public_key, ByteView message,
                     const SchnorrSignature& signature);
// Decodes, then verifies; a malformed key or signature is kInvalidArgument.
Status SchnorrVerify(ByteView public_key, ByteView message, ByteView signature);

struct SchnorrBatchItem {
  const SchnorrPublicKey* public_key;
  ByteView message;
  const SchnorrSignature* signature;
};
// Ok if every signature verifies (an empty batch is ok); VerificationFailed() otherwise, except
// with probability at most 2^-128 per bad signature. Does not say which one failed. A null pointer
// in an item is kInvalidArgument.
Status SchnorrBatchVerify(std::span<const SchnorrBatchItem> items);

}  // namespace veil::zk
