// Ed25519 signatures (RFC 8032, PureEdDSA) through libsodium.
//
// Verification is strict: a signature whose S is not reduced mod L is rejected (RFC 8032 section
// 5.1.7), as are non-canonical encodings of R or A and public keys of small order (libsodium's
// checks). Signing is deterministic, as the RFC specifies.
//
// A moved-from signing key aborts when used (its secret is a Secret<64>, secret.h).
//
// Thread safety: every function is safe from any thread; keys are values.
#pragma once

#include <array>
#include <cstdint>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kEd25519PublicKeySize = 32;
inline constexpr std::size_t kEd25519SeedSize = 32;
inline constexpr std::size_t kEd25519SignatureSize = 64;

using Ed25519PublicKey = std::array<std::uint8_t, kEd25519PublicKeySize>;
using Ed25519Signature = std::array<std::uint8_t, kEd25519SignatureSize>;

class Ed25519SigningKey {
 public:
  static Ed25519SigningKey Generate();
  static Ed25519SigningKey FromSeed(const Secret<kEd25519SeedSize>& seed);
  static Result<Ed25519SigningKey> FromSeedBytes(ByteView seed);

  const Ed25519PublicKey& public_key() const { return public_key_; }
  Secret<kEd25519SeedSize> seed() const;
  Ed25519Signature Sign(ByteView message) const;

 private:
  Ed25519SigningKey() = default;
  Secret<64> expanded_;  // libsodium's secret key: seed || public key
  Ed25519PublicKey public_key_{};
};

// Wrong lengths are kInvalidArgument; a signature that does not verify is VerificationFailed().
Status Ed25519Verify(ByteView public_key, ByteView message, ByteView signature);

}  // namespace veil::crypto
