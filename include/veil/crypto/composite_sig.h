// The composite signature ML-DSA-65 + Ed25519 (draft-ietf-lamps-pq-composite-sigs-19,
// id-MLDSA65-Ed25519-SHA512): a signature holds only if both components verify, so it stays
// unforgeable while either ML-DSA-65 or Ed25519 does.
//
// Both components sign the message representative
//   M' = Prefix || Label || len(ctx) || ctx || SHA-512(M)
// (Prefix = "CompositeAlgorithmSignatures2025", Label = "COMPSIG-MLDSA65-Ed25519-SHA512"); ML-DSA
// also takes Label as its FIPS 204 context, so neither component can be lifted out and presented
// as a plain signature over M. Encodings are raw concatenations (draft section 4):
//   public key  = ML-DSA-65 pk (1952) || Ed25519 pk (32)           1984 bytes
//   private key = ML-DSA-65 seed xi (32) || Ed25519 seed (32)      64 bytes
//   signature   = ML-DSA-65 sig (3309) || Ed25519 sig (64)         3373 bytes
//
// A moved-from key aborts when used.
//
// Thread safety: keys are immutable after construction; functions are safe from any thread.
#pragma once

#include <array>
#include <memory>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/mldsa65.h"
#include "veil/crypto/secret.h"

namespace veil::crypto {

inline constexpr std::size_t kCompositePublicKeySize = 1984;
inline constexpr std::size_t kCompositePrivateKeySize = 64;
inline constexpr std::size_t kCompositeSignatureSize = 3373;
inline constexpr std::size_t kCompositeMaxContextSize = 255;

using CompositeSignature = std::array<std::uint8_t, kCompositeSignatureSize>;

class CompositeVerifyingKey {
 public:
  // Strict: exactly 1984 bytes.
  static Result<CompositeVerifyingKey> Decode(ByteView encoded);
  const std::array<std::uint8_t, kCompositePublicKeySize>& bytes() const;
  // Both components must verify; a context over 255 bytes is kInvalidArgument.
  Status Verify(ByteView message, ByteView context, ByteView signature) const;

 private:
  struct State;
  explicit CompositeVerifyingKey(std::shared_ptr<const State> s) : s_(std::move(s)) {}
  const State& Live() const;
  friend class CompositeSigningKey;
  std::shared_ptr<const State> s_;
};

class CompositeSigningKey {
 public:
  static CompositeSigningKey Generate();
  // DeserializePrivateKey: ML-DSA seed || Ed25519 seed (64 bytes).
  static Result<CompositeSigningKey> Decode(ByteView private_key);
  ~CompositeSigningKey();
  CompositeSigningKey(CompositeSigningKey&&) noexcept;
  CompositeSigningKey& operator=(CompositeSigningKey&&) noexcept;

  SecretBytes Encode() const;
  const CompositeVerifyingKey& verifying_key() const;
  // Hedged ML-DSA by default; Ed25519 is deterministic either way.
  Result<CompositeSignature> Sign(ByteView message, ByteView context = {},
                                  MlDsaSigning mode = MlDsaSigning::kHedged) const;

 private:
  struct State;
  explicit CompositeSigningKey(std::unique_ptr<State> s);
  const State& Live() const;
  std::unique_ptr<State> s_;
};

}  // namespace veil::crypto
