// Ed25519 signature verification (RFC 8032 sec. 5.1.7) on this floor's engine, accepting exactly
// the signatures that libsodium 1.0.18's crypto_sign_verify_detached accepts (the rule set
// crypto::Ed25519Verify applies through libsodium), so that a ledger may check a signature here or
// there and reach the same verdict:
//
//   - the public key A: its y below p (canonical), its encoding, sign bit ignored, none of the
//     seven small-order encodings libsodium lists (every point of order 1, 2, 4 and 8, and y = p,
//     p + 1), and a point of the curve;
//   - the signature R || S: S below l (canonical); R's encoding, sign bit ignored, none of the same
//     seven; R is never decoded but compared as bytes with the encoding of [S]B - [k]A, where
//     k = SHA-512(R || A || M) mod l: the cofactorless equation, so a key or R with a torsion
//     component verifies exactly when that equation holds, as in libsodium.
//
// Why not libsodium itself: a key parsed once (Ed25519VerifyingKey) skips the decompression, about
// a sixth of a verification, on every later signature of the same signer, and the double-base
// multiplication is this floor's (docs/notes/ec.md, "Ed25519 verification"). The agreement with
// libsodium is tested on Wycheproof's Ed25519 file and on mutated, non-canonical and
// torsion-carrying inputs side by side (tests/ec/ed25519_test.cc).
//
// Variable time: for public keys, messages and signatures only.
// Thread safety: an Ed25519VerifyingKey is a value; Verify is const and safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/base/status.h"
#include "veil/ec/edwards25519.h"

namespace veil::ec {

namespace internal {
struct HalvedBase;
}

class Ed25519VerifyingKey {
 public:
  static constexpr std::size_t kSize = 32;
  static constexpr std::size_t kSignatureSize = 64;
  using Bytes = std::array<std::uint8_t, kSize>;

  // Applies the key rules above: InvalidArgument for a key of the wrong length,
  // VerificationFailed() for one libsodium would refuse (no signature verifies under it there).
  // Prepares the key for many verifications (about half a verification's work, 4 KiB): for one
  // signature, Ed25519VerifyVartime is cheaper.
  static Result<Ed25519VerifyingKey> FromBytes(ByteView public_key);

  // Ok, or VerificationFailed() (InvalidArgument for a signature that is not 64 bytes). The
  // message is the concatenation of `message_parts`, hashed in place.
  Status Verify(std::initializer_list<ByteView> message_parts, ByteView signature) const;
  Status Verify(ByteView message, ByteView signature) const { return Verify({message}, signature); }

  const Bytes& bytes() const { return bytes_; }

 private:
  Ed25519VerifyingKey(const Bytes& bytes, std::shared_ptr<const internal::HalvedBase> neg_a)
      : bytes_(bytes), neg_a_(std::move(neg_a)) {}
  Bytes bytes_;
  std::shared_ptr<const internal::HalvedBase> neg_a_;  // -A's tables, built once
};

// One verification from the key's bytes, without preparing the key (the engine's double-base
// multiplication): cheaper than FromBytes then Verify for a key seen once.
Status Ed25519VerifyVartime(ByteView public_key, std::initializer_list<ByteView> message_parts,
                            ByteView signature);
inline Status Ed25519VerifyVartime(ByteView public_key, ByteView message, ByteView signature) {
  return Ed25519VerifyVartime(public_key, {message}, signature);
}

}  // namespace veil::ec
