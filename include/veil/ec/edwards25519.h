// The full group of the twisted Edwards curve edwards25519 (RFC 8032 sec. 5.1; RFC 7748 sec. 4.1),
// beside ristretto255, for protocols whose outputs must be plain Ed25519 objects (FROST(Ed25519,
// SHA-512) signatures that any Ed25519 verifier accepts, docs/notes/frost.md).
//
// The curve group has order 8 l (cofactor 8). Unlike ristretto255, a point here is a curve point,
// not a coset: an EdwardsPoint may carry a small-order component, and two points are equal only
// when their affine coordinates are. Callers that need the prime-order subgroup (every protocol
// here) check it where untrusted points enter: IsTorsionFreeVartime() computes [l]P.
//
// Two types, as for ristretto255: CompressedEdwardsY is 32 bytes that claim to encode a point
// (RFC 8032 sec. 5.1.2: y little-endian, the sign of x in bit 255); EdwardsPoint is a point in
// extended coordinates. The only way from the first to the second is the checked Decode, which is
// strict (RFC 8032 sec. 5.1.3): y >= p, x = 0 with the sign bit set, and y with no matching x are
// all rejected, so every point has exactly one accepted encoding.
//
// The arithmetic is the ristretto255 engine's (src/ec/edwards.h, scalar_mul.cc): its formulas are
// complete on the whole curve, and its multiplications act exactly on the Edwards representative,
// so an EdwardsPoint reuses them through RistrettoPoint::FromEdwardsUnchecked (docs/notes/ec.md).
// Constant time: arithmetic, encoding, equality, the identity test, Select, and the scalar
// multiplications operator* and MulBase. Variable time, for public inputs only, as their names say:
// MulVartime, DoubleScalarMulBasepointVartime, MultiScalarMulVartime, IsTorsionFreeVartime.
// Decoding branches only on its (public) verdict.
//
// Thread safety: values; safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::ec {

class EdwardsPoint;

// 32 bytes that may or may not encode a curve point.
class CompressedEdwardsY {
 public:
  static constexpr std::size_t kSize = 32;
  using Bytes = std::array<std::uint8_t, kSize>;

  // The encoding of the identity (y = 1, x = 0).
  constexpr CompressedEdwardsY() : bytes_{1} {}
  explicit constexpr CompressedEdwardsY(const Bytes& b) : bytes_(b) {}
  // Length check only (kInvalidArgument unless 32 bytes); Decode() checks the rest.
  static Result<CompressedEdwardsY> FromBytes(ByteView b);

  const Bytes& bytes() const { return bytes_; }
  // RFC 8032 sec. 5.1.3, strict: kInvalidArgument for y >= p, for x = 0 with the sign bit set,
  // and when (y^2 - 1) / (d y^2 + 1) is not a square. Small-order points and points outside the
  // prime-order subgroup decode (they are curve points); see IsTorsionFreeVartime.
  Result<EdwardsPoint> Decode() const;

  friend bool operator==(const CompressedEdwardsY&, const CompressedEdwardsY&) = default;

 private:
  Bytes bytes_;
};

class EdwardsPoint {
 public:
  using Edwards = RistrettoPoint::Edwards;

  // The identity (0, 1).
  EdwardsPoint();
  static EdwardsPoint Identity() { return EdwardsPoint(); }
  // The Ed25519 base point B (y = 4/5, x positive), of order l.
  static EdwardsPoint Basepoint();

  // Decode(bytes) for 32 bytes; kInvalidArgument otherwise (see CompressedEdwardsY::Decode).
  static Result<EdwardsPoint> Decode(ByteView bytes);

  // RFC 8032 sec. 5.1.2. Constant time (one field inversion).
  CompressedEdwardsY Encode() const;
  // Encode on each point, with one field inversion for the whole batch (Montgomery's trick: three
  // multiplications a point). Constant time; the batch size is public.
  static std::vector<CompressedEdwardsY> EncodeBatch(std::span<const EdwardsPoint> points);

  EdwardsPoint operator+(const EdwardsPoint& b) const;
  EdwardsPoint operator-(const EdwardsPoint& b) const;
  EdwardsPoint operator-() const;
  EdwardsPoint& operator+=(const EdwardsPoint& b) { return *this = *this + b; }
  EdwardsPoint& operator-=(const EdwardsPoint& b) { return *this = *this - b; }
  EdwardsPoint Double() const;
  // [8]P: three doublings. The result is in the prime-order subgroup.
  EdwardsPoint MultiplyByCofactor() const;

  // Exact equality of curve points, constant time (X1 Z2 = X2 Z1 and Y1 Z2 = Y2 Z1).
  friend bool operator==(const EdwardsPoint& a, const EdwardsPoint& b);
  // Constant time.
  bool IsIdentity() const;
  // [8]P == identity: one of the 8 points of small order. Constant time.
  bool IsSmallOrder() const;
  // [l]P == identity: P lies in the prime-order subgroup (the identity does). Variable time, for
  // public points only (decoded wire data).
  bool IsTorsionFreeVartime() const;
  // r = choice ? b : a, choice in {0, 1}, without a branch.
  static EdwardsPoint Select(const EdwardsPoint& a, const EdwardsPoint& b, std::uint64_t choice);

  // [s]P, constant time (the engine's signed radix-16 ladder). s < l, so on a point with a
  // small-order component the result is exactly [s]P, not [s mod l] of its prime-order part.
  friend EdwardsPoint operator*(const Scalar& s, const EdwardsPoint& p);
  // [s]B, constant time, from the engine's precomputed table.
  static EdwardsPoint MulBase(const Scalar& s);
  // [s]P for a public scalar (width-5 NAF).
  EdwardsPoint MulVartime(const Scalar& s) const;
  // a A + b B. Variable time: public scalars only.
  static EdwardsPoint DoubleScalarMulBasepointVartime(const Scalar& a, const EdwardsPoint& big_a,
                                                      const Scalar& b);
  // sum s_i P_i. Variable time: public scalars only. The spans must have the same length (a
  // mismatch aborts); an empty sum is the identity.
  static EdwardsPoint MultiScalarMulVartime(std::span<const Scalar> scalars,
                                            std::span<const EdwardsPoint> points);

  // The extended coordinates, and a point from coordinates the caller knows to be on the curve.
  const Edwards& edwards() const { return e_; }
  static EdwardsPoint FromEdwardsUnchecked(const Edwards& e) { return EdwardsPoint(e); }

 private:
  explicit EdwardsPoint(const Edwards& e) : e_(e) {}
  Edwards e_;
};

}  // namespace veil::ec
