// Pedersen commitments over ristretto255: C = v G + r H, and vector commitments
// C = sum a_i G_i + r H (docs/notes/sigma.md, "Pedersen commitments").
//
// Generators, nothing up the sleeve: G is the standard ristretto255 generator (RFC 9496 sec. 4.4);
// H and the vector generators G_i come from hash_to_ristretto255 (RFC 9380 sec. 6.8.1, our
// RistrettoPoint::HashToGroup) with the domain separation tag kPedersenDst:
//
//     H   = HashToGroup("H", kPedersenDst)
//     G_i = HashToGroup("G" || u32_be(i), kPedersenDst)     i = 0, 1, ...
//
// so nobody knows a discrete-log relation between any two of them. Commitments are perfectly
// hiding and computationally binding (under discrete log in ristretto255) and additively
// homomorphic: Commit(v1, r1) + Commit(v2, r2) = Commit(v1 + v2, r1 + r2).
//
// Constant time: Commit and VerifyOpening are constant time in the value and the blinding (fixed-
// base tables: BasepointMul for G, an ec::FixedBaseTable for H and each G_i); only their verdict
// is public. CommitVartime is variable time and is for public values only (e.g. a published
// opening). Decode is strict: 32 bytes that canonically encode a group element.
//
// Thread safety: PedersenGens::Default() is built once under a function-local static and then
// immutable; generator sets and commitments are values, safe to share for reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::zk {

// The hash_to_ristretto255 DST for every Pedersen generator (RFC 9380 sec. 3.1: a tag naming the
// application and version, then the suite ID).
inline constexpr std::string_view kPedersenDst =
    "veil.zk.pedersen.v1-ristretto255_XMD:SHA-512_R255MAP_RO_";

// The derivations above, recomputed on every call (a hash to the group each).
ec::RistrettoPoint PedersenGeneratorH();
ec::RistrettoPoint PedersenVectorGenerator(std::uint32_t i);

// A commitment: a group element. Its arithmetic is the homomorphism.
class Commitment {
 public:
  static constexpr std::size_t kSize = 32;

  // The identity: the commitment to (0, 0).
  Commitment() = default;
  explicit Commitment(const ec::RistrettoPoint& p) : point_(p) {}

  const ec::RistrettoPoint& point() const { return point_; }
  ec::CompressedRistretto Encode() const { return point_.Encode(); }
  // Exactly 32 bytes, canonical encoding of an element; kInvalidArgument otherwise.
  static Result<Commitment> Decode(ByteView bytes);

  Commitment operator+(const Commitment& o) const { return Commitment(point_ + o.point_); }
  Commitment operator-(const Commitment& o) const { return Commitment(point_ - o.point_); }
  Commitment operator-() const { return Commitment(-point_); }
  Commitment& operator+=(const Commitment& o) { return *this = *this + o; }
  Commitment& operator-=(const Commitment& o) { return *this = *this - o; }
  // Constant-time variable-base multiplication: k Commit(v, r) = Commit(k v, k r).
  friend Commitment operator*(const ec::Scalar& k, const Commitment& c) {
    return Commitment(k * c.point_);
  }
  // Group equality, constant time.
  friend bool operator==(const Commitment& a, const Commitment& b) { return a.point_ == b.point_; }

 private:
  ec::RistrettoPoint point_;
};

// The pair (G, H) with H's fixed-base table.
class PedersenGens {
 public:
  // G = the standard generator, H = PedersenGeneratorH(); built once.
  static const PedersenGens& Default();

  const ec::RistrettoPoint& G() const { return g_; }
  const ec::RistrettoPoint& H() const { return h_table_.point(); }
  const ec::FixedBaseTable& h_table() const { return h_table_; }

  // v G + r H. Constant time in v and r.
  Commitment Commit(const ec::Scalar& value, const ec::Scalar& blinding) const;
  // Same result, variable time: public value and blinding only.
  Commitment CommitVartime(const ec::Scalar& value, const ec::Scalar& blinding) const;
  // Ok if c = v G + r H, VerificationFailed() otherwise. Constant time up to the verdict.
  Status VerifyOpening(const Commitment& c, const ec::Scalar& value,
                       const ec::Scalar& blinding) const;

 private:
  PedersenGens();
  ec::RistrettoPoint g_;
  ec::FixedBaseTable h_table_;
};

// G_0..G_{n-1} and H, each with a fixed-base table (about 30 KiB and 60 multiplications' worth of
// additions per generator, paid once in the constructor).
class VectorPedersenGens {
 public:
  static constexpr std::size_t kMaxSize = 1 << 16;

  // 1 <= n <= kMaxSize; anything else is a programming error and aborts.
  explicit VectorPedersenGens(std::size_t n);

  std::size_t size() const { return tables_.size(); }
  const ec::RistrettoPoint& G(std::size_t i) const { return tables_.at(i).point(); }
  const ec::FixedBaseTable& table(std::size_t i) const { return tables_.at(i); }
  const ec::RistrettoPoint& H() const { return PedersenGens::Default().H(); }

  // sum a_i G_i + r H for a.size() <= size() (kInvalidArgument otherwise). Constant time in the
  // values of a and r (their number is public).
  Result<Commitment> Commit(std::span<const ec::Scalar> a, const ec::Scalar& blinding) const;
  // Same result by one variable-time multi-scalar multiplication: public a and r only.
  Result<Commitment> CommitVartime(std::span<const ec::Scalar> a, const ec::Scalar& blinding) const;
  // Ok if c = sum a_i G_i + r H; VerificationFailed() otherwise (kInvalidArgument for too many
  // values). Constant time up to the verdict.
  Status VerifyOpening(const Commitment& c, std::span<const ec::Scalar> a,
                       const ec::Scalar& blinding) const;

 private:
  std::vector<ec::FixedBaseTable> tables_;
};

}  // namespace veil::zk
