// Linkable ring signatures with key images: Triptych (Noether and Goodell 2020) over ristretto255
// (docs/notes/one_of_many.md).
//
// A ring is a list of public keys P_0..P_{N-1}, P_i = r_i G for the standard generator G. A
// signature by the holder of r_l proves, for a message, that the signer knows l and r with
// P_l = r G and r J = U, where J = r^{-1} U is the signer's key image and U a generator of unknown
// discrete log:
//
//     U = hash_to_ristretto255("U", kKeyImageDst)      (RFC 9380 sec. 6.8.1)
//
// The key image depends on the key only, so two signatures by one key carry the same J (Linked)
// whatever the rings and messages, and nothing else about the signer is revealed. The proof is
// the one-of-many proof of one_of_many.h (same digits, polynomials and commitments A, B, C, D)
// with two sums per digit, X_j over the ring and Y_j over J:
//
//     J, A, B, C, D, X_0..X_{m-1}, Y_0..Y_{m-1}            (2m + 5 points)
//     f_{j,i} for j < m, 1 <= i < n, z_A, z_C, z              (m (n - 1) + 3 scalars)
//
// 32 (m (n + 1) + 8) bytes, for rings of N <= n^m keys (padded by repeating the last key). The
// base n is chosen per ring size by DefaultRingParams unless the caller fixes it.
//
// Transcript "veil.zk.ring-signature" v1: N, n, m, the ring's digest, J, the message, A, B, C, D,
// X_j, Y_j, then the challenge x.
//
// Keys: a secret scalar r != 0 (the same 32-byte secret and public key as a SchnorrSigningKey).
// Decoding is strict: keys, key images and signature points canonical, key images and ring
// members not the identity, scalars < l.
//
// Constant time: signing is constant time in the key, the signer's position in the ring (found by
// comparing every member's encoding in constant time) and the nonces. Verification is variable
// time (public data). RingSigningKey wipes its scalar on destruction.
//
// Thread safety: keys, rings and signatures are values; a const RingSigningKey may sign from
// several threads at once. U is built once under a function-local static.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/secret.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/one_of_many.h"

namespace veil::zk {

inline constexpr std::string_view kRingSignatureProtocol = "veil.zk.ring-signature";
inline constexpr std::uint64_t kRingSignatureVersion = 1;
inline constexpr std::string_view kKeyImageDst =
    "veil.zk.ring-signature.v1-ristretto255_XMD:SHA-512_R255MAP_RO_";

// U = HashToGroup("U", kKeyImageDst), recomputed on every call.
ec::RistrettoPoint KeyImageGenerator();

// The base chosen for ring signatures over N keys (kInvalidArgument for N out of range).
Result<OneOfManyParams> DefaultRingParams(std::size_t N);
// 32 (m (n + 1) + 8).
inline std::size_t RingSignatureSize(const OneOfManyParams& p) {
  return 32 * (p.m * (p.n + 1) + 8);
}

// J = r^{-1} U: a canonical encoding of a non-identity element.
class KeyImage {
 public:
  static constexpr std::size_t kSize = 32;
  // kInvalidArgument unless 32 bytes encoding a non-identity element canonically.
  static Result<KeyImage> Decode(ByteView bytes);
  const ec::CompressedRistretto& encoding() const { return encoding_; }
  const ec::RistrettoPoint& point() const { return point_; }
  const ec::CompressedRistretto::Bytes& Encode() const { return encoding_.bytes(); }
  friend bool operator==(const KeyImage& a, const KeyImage& b) {
    return a.encoding_ == b.encoding_;
  }

 private:
  friend struct RingInternal;
  KeyImage(const ec::CompressedRistretto& e, const ec::RistrettoPoint& p)
      : encoding_(e), point_(p) {}
  ec::CompressedRistretto encoding_;
  ec::RistrettoPoint point_;
};

class RingSigningKey {
 public:
  static RingSigningKey Generate();
  // A canonical non-zero scalar (32 bytes little-endian); kInvalidArgument otherwise.
  static Result<RingSigningKey> FromBytes(ByteView secret);

  RingSigningKey(RingSigningKey&& o) noexcept;
  RingSigningKey& operator=(RingSigningKey&& o) noexcept;
  RingSigningKey(const RingSigningKey&) = delete;
  RingSigningKey& operator=(const RingSigningKey&) = delete;
  ~RingSigningKey() { r_.Wipe(); }

  const ec::RistrettoPoint& public_key() const { return public_key_; }
  const ec::CompressedRistretto& public_key_encoding() const { return public_key_encoding_; }
  const KeyImage& key_image() const { return key_image_; }
  crypto::Secret<32> ToBytes() const;

 private:
  friend struct RingInternal;
  RingSigningKey(const ec::Scalar& r, const ec::RistrettoPoint& p,
                 const ec::CompressedRistretto& p_enc, const KeyImage& j)
      : r_(r), public_key_(p), public_key_encoding_(p_enc), key_image_(j) {}
  ec::Scalar r_;
  ec::RistrettoPoint public_key_;
  ec::CompressedRistretto public_key_encoding_;
  KeyImage key_image_;
};

// The ring P_0..P_{N-1} (order matters: it is part of the statement), its parameters and digest.
class Ring {
 public:
  // `base` 0 picks DefaultRingParams(N). kInvalidArgument for an empty or too large ring, a bad
  // base, an identity member, or (Decode) a non-canonical member. A key may appear more than once.
  static Result<Ring> FromPoints(std::span<const ec::RistrettoPoint> members, std::size_t base = 0);
  static Result<Ring> Decode(std::span<const ec::CompressedRistretto> members,
                             std::size_t base = 0);

  std::size_t size() const { return points_.size(); }
  const OneOfManyParams& params() const { return params_; }
  const std::vector<ec::RistrettoPoint>& points() const { return points_; }
  const std::vector<ec::CompressedRistretto>& encodings() const { return encodings_; }
  // Through a Transcript "veil.zk.ring-signature.ring" v1 over N and every encoding in order.
  const std::array<std::uint8_t, 32>& digest() const { return digest_; }

 private:
  friend struct RingInternal;
  Ring() = default;
  OneOfManyParams params_;
  std::vector<ec::RistrettoPoint> points_;
  std::vector<ec::CompressedRistretto> encodings_;
  std::array<std::uint8_t, 32> digest_{};
};

class RingSignature {
 public:
  // Exactly RingSignatureSize(params) bytes in the layout above; kInvalidArgument otherwise.
  static Result<RingSignature> Decode(ByteView bytes, const OneOfManyParams& params);
  Bytes Encode() const;
  const OneOfManyParams& params() const { return params_; }
  const KeyImage& key_image() const { return key_image_; }

 private:
  friend struct RingInternal;
  RingSignature(const OneOfManyParams& p, const KeyImage& j) : params_(p), key_image_(j) {}
  OneOfManyParams params_;
  KeyImage key_image_;
  std::vector<ec::CompressedRistretto> encodings_;  // A, B, C, D, X_0.., Y_0..
  std::vector<ec::RistrettoPoint> points_;          // the same, decoded
  std::vector<ec::Scalar> f_;                       // f_{j,i}, j < m, 1 <= i < n, row by row
  ec::Scalar z_a_, z_c_, z_;
};

// Signs `message` as some member of `ring`: the key's position is found in constant time (the
// last one if the key appears twice). kInvalidArgument if the key is not in the ring (that verdict
// is the only thing about the position that is branched on).
Result<RingSignature> RingSign(const RingSigningKey& key, const Ring& ring, ByteView message);

// Ok, VerificationFailed(), or kInvalidArgument when the signature's parameters differ from the
// ring's.
Status RingVerify(const Ring& ring, ByteView message, const RingSignature& signature);

// Whether two signatures come from the same key (their key images are equal). Meaningful for
// signatures that verify.
inline bool Linked(const RingSignature& a, const RingSignature& b) {
  return a.key_image() == b.key_image();
}

struct RingBatchItem {
  const Ring* ring;
  ByteView message;
  const RingSignature* signature;
};
// Ok if every signature verifies (an empty batch is ok), VerificationFailed() otherwise except
// with probability at most 2^-128 per bad signature; kInvalidArgument for a null pointer or a
// parameter mismatch. One multi-scalar multiplication; rings shared between items are merged.
Status RingBatchVerify(std::span<const RingBatchItem> items);

}  // namespace veil::zk
