// edwards25519 points (include/veil/ec/edwards25519.h): the RFC 8032 codec, exact equality, the
// cofactor and subgroup tests, and the group operations through the ristretto255 engine.
//
// The engine's RistrettoPoint holds an extended Edwards representative and every operation this
// file borrows from it (+, -, Double, operator*, BasepointMul, MulVartime, the double-base and
// multi-scalar multiplications) computes on that representative with the complete
// Hisil-Wong-Carter-Dawson formulas, which hold for every point of the curve, torsion included
// (a = -1 is a square and d is not, so no denominator vanishes; docs/notes/frost.md). Only the
// ristretto255-specific functions (Encode, ==, Decode) treat the representative as a coset, and
// this file never calls them. FromEdwardsUnchecked's comment asks for a point of the even
// subgroup because ristretto255's encoding needs one; the arithmetic does not.
//
// Thread safety: stateless functions on values.
#include "veil/ec/edwards25519.h"

#include <algorithm>
#include <vector>

#include "edwards.h"
#include "veil/base/status.h"
#include "veil/crypto/fe25519.h"

namespace veil::ec {

using crypto::Fe25519;
using crypto::FeAdd;
using crypto::FeEqual;
using crypto::FeFromBytes;
using crypto::FeIsNegative;
using crypto::FeIsZero;
using crypto::FeMul;
using crypto::FeNeg;
using crypto::FeSelect;
using crypto::FeSqrtRatioM1;
using crypto::FeSquare;
using crypto::FeSub;
using crypto::FeToBytes;
using crypto::kFeOne;

namespace {

// The bridge into the engine: the same coordinates, viewed as a ristretto255 representative so
// that its (exact) arithmetic applies.
RistrettoPoint AsEngine(const EdwardsPoint& p) {
  return RistrettoPoint::FromEdwardsUnchecked(p.edwards());
}
EdwardsPoint FromEngine(const RistrettoPoint& p) {
  return EdwardsPoint::FromEdwardsUnchecked(p.edwards());
}

}  // namespace

Result<CompressedEdwardsY> CompressedEdwardsY::FromBytes(ByteView b) {
  if (b.size() != kSize) return InvalidArgument("edwards25519: an encoding is 32 bytes");
  Bytes bytes;
  std::copy(b.begin(), b.end(), bytes.begin());
  return CompressedEdwardsY(bytes);
}

Result<EdwardsPoint> CompressedEdwardsY::Decode() const {
  // RFC 8032 sec. 5.1.3. Step 1: y is bits 0..254, x_0 is bit 255; y must be below p (checked by
  // re-encoding, as FeFromBytes accepts values up to 2^255 - 1).
  Bytes y_bytes = bytes_;
  const std::uint64_t x_0 = y_bytes[31] >> 7;
  y_bytes[31] &= 0x7f;
  const Fe25519 y = FeFromBytes(y_bytes);
  const bool canonical = FeToBytes(y) == y_bytes;
  // Step 2: x^2 = u / v with u = y^2 - 1, v = d y^2 + 1 (v is never zero: -1/d is not a square).
  const Fe25519 yy = FeSquare(y);
  const Fe25519 u = FeSub(yy, kFeOne);
  const Fe25519 v = FeAdd(FeMul(internal::kD, yy), kFeOne);
  // Step 3: the root; SqrtRatioM1 returns the non-negative one (x = 0 when u = 0).
  const crypto::FeSqrtRatio root = FeSqrtRatioM1(u, v);
  // Step 4: x = 0 with x_0 = 1 has no point; otherwise pick the root whose low bit is x_0.
  const std::uint64_t bad_zero = FeIsZero(root.r) & x_0;
  const Fe25519 x = FeSelect(root.r, FeNeg(root.r), x_0);
  // Encodings are public: the verdict may branch.
  if (!canonical || root.was_square == 0 || bad_zero != 0) {
    return InvalidArgument("edwards25519: bytes encode no curve point");
  }
  return EdwardsPoint::FromEdwardsUnchecked({x, y, kFeOne, FeMul(x, y)});
}

EdwardsPoint::EdwardsPoint() : e_(internal::kIdentity) {}

EdwardsPoint EdwardsPoint::Basepoint() { return EdwardsPoint(internal::kBasepoint); }

Result<EdwardsPoint> EdwardsPoint::Decode(ByteView bytes) {
  VEIL_ASSIGN_OR_RETURN(CompressedEdwardsY c, CompressedEdwardsY::FromBytes(bytes));
  return c.Decode();
}

CompressedEdwardsY EdwardsPoint::Encode() const {
  const Fe25519 z_inv = crypto::FeInvert(e_.z);
  const Fe25519 x = FeMul(e_.x, z_inv);
  const Fe25519 y = FeMul(e_.y, z_inv);
  CompressedEdwardsY::Bytes b = FeToBytes(y);
  b[31] = static_cast<std::uint8_t>(b[31] | (FeIsNegative(x) << 7));
  return CompressedEdwardsY(b);
}

std::vector<CompressedEdwardsY> EdwardsPoint::EncodeBatch(std::span<const EdwardsPoint> points) {
  const std::size_t n = points.size();
  std::vector<CompressedEdwardsY> out;
  if (n == 0) return out;
  out.reserve(n);
  std::vector<Fe25519> z_inv(n), scratch(n);
  for (std::size_t i = 0; i < n; ++i) z_inv[i] = points[i].e_.z;
  crypto::FeInvertBatch(z_inv, scratch);
  for (std::size_t i = 0; i < n; ++i) {
    const Fe25519 x = FeMul(points[i].e_.x, z_inv[i]);
    const Fe25519 y = FeMul(points[i].e_.y, z_inv[i]);
    CompressedEdwardsY::Bytes b = FeToBytes(y);
    b[31] = static_cast<std::uint8_t>(b[31] | (FeIsNegative(x) << 7));
    out.push_back(CompressedEdwardsY(b));
  }
  return out;
}

EdwardsPoint EdwardsPoint::operator+(const EdwardsPoint& b) const {
  return EdwardsPoint(internal::AddExt(e_, b.e_));
}

EdwardsPoint EdwardsPoint::operator-(const EdwardsPoint& b) const {
  return EdwardsPoint(internal::ToExtended(internal::Sub(e_, internal::ToNiels(b.e_))));
}

EdwardsPoint EdwardsPoint::operator-() const { return EdwardsPoint(internal::NegExt(e_)); }

EdwardsPoint EdwardsPoint::Double() const { return EdwardsPoint(internal::DoubleExt(e_)); }

EdwardsPoint EdwardsPoint::MultiplyByCofactor() const {
  return EdwardsPoint(internal::DoubleExt(internal::DoubleExt(internal::DoubleExt(e_))));
}

bool operator==(const EdwardsPoint& a, const EdwardsPoint& b) {
  const EdwardsPoint::Edwards& p = a.e_;
  const EdwardsPoint::Edwards& q = b.e_;
  const std::uint64_t eq_x = FeEqual(FeMul(p.x, q.z), FeMul(q.x, p.z));
  const std::uint64_t eq_y = FeEqual(FeMul(p.y, q.z), FeMul(q.y, p.z));
  return (eq_x & eq_y) != 0;
}

bool EdwardsPoint::IsIdentity() const { return (FeIsZero(e_.x) & FeEqual(e_.y, e_.z)) != 0; }

bool EdwardsPoint::IsSmallOrder() const { return MultiplyByCofactor().IsIdentity(); }

bool EdwardsPoint::IsTorsionFreeVartime() const {
  // [l]P = [l - 1]P + P; a Scalar holds l - 1 (= -1) but not l.
  return (MulVartime(-Scalar::One()) + *this).IsIdentity();
}

EdwardsPoint EdwardsPoint::Select(const EdwardsPoint& a, const EdwardsPoint& b,
                                  std::uint64_t choice) {
  return EdwardsPoint(internal::SelectExt(a.e_, b.e_, choice));
}

EdwardsPoint operator*(const Scalar& s, const EdwardsPoint& p) {
  return FromEngine(s * AsEngine(p));
}

EdwardsPoint EdwardsPoint::MulBase(const Scalar& s) { return FromEngine(BasepointMul(s)); }

EdwardsPoint EdwardsPoint::MulVartime(const Scalar& s) const {
  return FromEngine(AsEngine(*this).MulVartime(s));
}

EdwardsPoint EdwardsPoint::DoubleScalarMulBasepointVartime(const Scalar& a,
                                                           const EdwardsPoint& big_a,
                                                           const Scalar& b) {
  return FromEngine(ec::DoubleScalarMulBasepointVartime(a, AsEngine(big_a), b));
}

EdwardsPoint EdwardsPoint::MultiScalarMulVartime(std::span<const Scalar> scalars,
                                                 std::span<const EdwardsPoint> points) {
  VEIL_CHECK_MSG(scalars.size() == points.size(),
                 "EdwardsPoint::MultiScalarMulVartime: spans differ in length");
  std::vector<RistrettoPoint> engine;
  engine.reserve(points.size());
  for (const EdwardsPoint& p : points) engine.push_back(AsEngine(p));
  return FromEngine(ec::MultiScalarMulVartime(scalars, engine));
}

}  // namespace veil::ec
