// The prime-order group ristretto255 (RFC 9496) on our own Edwards-curve engine.
//
// Two types: CompressedRistretto is 32 bytes that claim to encode an element; RistrettoPoint is an
// element in memory (extended Edwards coordinates, docs/notes/ec.md). The only way from the first
// to the second is the checked Decode, which rejects every non-canonical encoding (RFC 9496 sec.
// 4.3.1); Encode is always canonical. Equality of points is equality in the group (not of the
// coordinates), in constant time.
//
// Scalar multiplication comes in three kinds:
//   - constant time, for secret scalars: Scalar * RistrettoPoint (variable base),
//     BasepointMul and FixedBaseTable::Mul (fixed base, precomputed tables);
//   - variable time, for public scalars only (verification): DoubleScalarMulBasepointVartime
//     (a A + b B) and MultiScalarMulVartime (Straus for small sizes, Pippenger for large);
// Arithmetic on points (add, subtract, negate, double) is constant time.
//
// Thread safety: values and immutable tables; safe from any thread. The base point's table is
// built on first use under a function-local static.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/crypto/fe25519.h"
#include "veil/ec/scalar.h"

namespace veil::ec {

class RistrettoPoint;

// 32 bytes that may or may not encode a group element.
class CompressedRistretto {
 public:
  static constexpr std::size_t kSize = 32;
  using Bytes = std::array<std::uint8_t, kSize>;

  // The all-zero encoding (that of the identity).
  constexpr CompressedRistretto() = default;
  explicit constexpr CompressedRistretto(const Bytes& b) : bytes_(b) {}
  // Length check only (kInvalidArgument unless 32 bytes); Decode() checks the rest.
  static Result<CompressedRistretto> FromBytes(ByteView b);

  const Bytes& bytes() const { return bytes_; }
  // The checked decoding (RFC 9496 sec. 4.3.1): kInvalidArgument for a non-canonical field
  // element, a negative s, or bytes that encode no element.
  Result<RistrettoPoint> Decode() const;

  friend bool operator==(const CompressedRistretto&, const CompressedRistretto&) = default;

 private:
  Bytes bytes_{};
};

class RistrettoPoint {
 public:
  // Extended twisted Edwards coordinates (X : Y : Z : T) of -x^2 + y^2 = 1 + d x^2 y^2: affine
  // x = X/Z, y = Y/Z, and XY = ZT. Any representative of the element's coset (docs/notes/ec.md).
  struct Edwards {
    crypto::Fe25519 x, y, z, t;
  };

  // The identity.
  RistrettoPoint();
  static RistrettoPoint Identity() { return RistrettoPoint(); }
  // The standard generator B (RFC 9496 sec. 4.4).
  static RistrettoPoint Generator();

  // Decode(bytes) for 32 bytes; kInvalidArgument otherwise (see CompressedRistretto::Decode).
  static Result<RistrettoPoint> Decode(ByteView bytes);
  // The element derivation of RFC 9496 sec. 4.3.4: two Elligator maps of 32 bytes each, added.
  // The input must be 64 uniformly random bytes (e.g. a hash output); no output is weak.
  static RistrettoPoint FromUniformBytes(std::span<const std::uint8_t, 64> bytes);
  // hash_to_ristretto255 of RFC 9380 sec. 6.8.1 (expand_message_xmd with SHA-512, 64 bytes, then
  // FromUniformBytes); the suite ID is part of dst, which must be 1..255 bytes.
  static RistrettoPoint HashToGroup(ByteView msg, ByteView dst);

  // The canonical encoding (RFC 9496 sec. 4.3.2). Constant time.
  CompressedRistretto Encode() const;
  // Encodes many points; the same result as Encode on each.
  static std::vector<CompressedRistretto> EncodeBatch(std::span<const RistrettoPoint> points);
  // Decodes many encodings; fails (naming the first bad index) if any is invalid.
  static Result<std::vector<RistrettoPoint>> DecodeBatch(
      std::span<const CompressedRistretto> encodings);

  RistrettoPoint operator+(const RistrettoPoint& b) const;
  RistrettoPoint operator-(const RistrettoPoint& b) const;
  RistrettoPoint operator-() const;
  RistrettoPoint& operator+=(const RistrettoPoint& b) { return *this = *this + b; }
  RistrettoPoint& operator-=(const RistrettoPoint& b) { return *this = *this - b; }
  RistrettoPoint Double() const;

  // Constant-time group equality (RFC 9496 sec. 4.3.3).
  friend bool operator==(const RistrettoPoint& a, const RistrettoPoint& b);
  bool IsIdentity() const;
  // r = choice ? b : a, choice in {0, 1}, without a branch.
  static RistrettoPoint Select(const RistrettoPoint& a, const RistrettoPoint& b,
                               std::uint64_t choice);

  // Constant-time variable-base multiplication (signed radix-16, 4-bit window).
  friend RistrettoPoint operator*(const Scalar& s, const RistrettoPoint& p);
  // Variable-time multiplication for a public scalar (width-5 NAF).
  RistrettoPoint MulVartime(const Scalar& s) const;

  // For src/ec and zk/ internals: the coordinates, and a point from coordinates the caller knows
  // to be on the curve (no check is made). The group operations are exact Edwards arithmetic on
  // the representative, which ec::EdwardsPoint relies on; only a point in the even subgroup is a
  // meaningful ristretto255 element (Encode assumes it).
  const Edwards& edwards() const { return e_; }
  static RistrettoPoint FromEdwardsUnchecked(const Edwards& e) { return RistrettoPoint(e); }

 private:
  explicit RistrettoPoint(const Edwards& e) : e_(e) {}
  Edwards e_;
};

// [s]P for a short scalar s < 2^128 (128-bit challenges), constant time: half the doublings of
// s * P. A larger s is a programming error and aborts.
RistrettoPoint MulShort(const Scalar& s, const RistrettoPoint& p);

// [s]B for the standard generator, constant time, from a precomputed table (radix 16, 32 tables
// of 8 multiples).
RistrettoPoint BasepointMul(const Scalar& s);

// A precomputed table for constant-time multiplication of one fixed point (Pedersen generators,
// a long-lived public key). About 30 KiB; building it costs about 60 multiplications' worth of
// additions. Copies share the table.
class FixedBaseTable {
 public:
  explicit FixedBaseTable(const RistrettoPoint& p);
  // [s]P, constant time.
  RistrettoPoint Mul(const Scalar& s) const;
  const RistrettoPoint& point() const { return point_; }

  struct Impl;

 private:
  RistrettoPoint point_;
  std::shared_ptr<const Impl> impl_;
};

// a A + b B for the standard generator B. Variable time: public scalars only.
RistrettoPoint DoubleScalarMulBasepointVartime(const Scalar& a, const RistrettoPoint& big_a,
                                               const Scalar& b);

// The algorithms behind MultiScalarMulVartime. kAuto picks the cheapest for the size and the CPU
// (the measured crossings are in docs/notes/ec.md); the others are there for tests and
// benchmarks. kPippengerAvx512 is Pippenger with eight windows in the lanes of AVX-512 IFMA
// registers; asking for it where HasAvx512Msm() is false is a programming error and aborts. (The
// values name the benchmark's rows; 2 was a Bos-Coster probe, docs/performance.md.)
enum class MsmAlgorithm { kAuto = 0, kStraus = 1, kPippenger = 3, kPippengerAvx512 = 4 };

// True when this CPU runs the AVX-512 IFMA multi-scalar multiplication (and the environment
// variable VEIL_EC_AVX512 is not "0", which keeps every call on the 64-bit code).
bool HasAvx512Msm();

// sum s_i P_i. Variable time: public scalars only. The spans must have the same length (a
// mismatch is a programming error and aborts); an empty sum is the identity.
RistrettoPoint MultiScalarMulVartime(std::span<const Scalar> scalars,
                                     std::span<const RistrettoPoint> points,
                                     MsmAlgorithm algorithm = MsmAlgorithm::kAuto);

// sum s_i P_i, constant time in the scalars and the points (Straus over signed radix-16 digits,
// every table entry read for every digit): for provers, whose scalars are secret. The spans must
// have the same length (a mismatch aborts); an empty sum is the identity.
RistrettoPoint MultiScalarMul(std::span<const Scalar> scalars,
                              std::span<const RistrettoPoint> points);

// The tables behind MultiScalarMul (1P..8P per point) built once for a fixed list of points, for
// a prover that computes several constant-time sums over the same points (one-of-many proofs,
// inner-product rounds). About 1.3 KiB per point. Copies share the tables.
class MultiScalarMulTable {
 public:
  explicit MultiScalarMulTable(std::span<const RistrettoPoint> points);
  // sum s_i P_i, constant time; scalars.size() must equal size() (a mismatch aborts).
  RistrettoPoint Mul(std::span<const Scalar> scalars) const;
  std::size_t size() const { return size_; }

  struct Impl;

 private:
  std::size_t size_ = 0;
  std::shared_ptr<const Impl> impl_;
};

// sum P_i.
RistrettoPoint Sum(std::span<const RistrettoPoint> points);

}  // namespace veil::ec
