// ristretto255 encoding, decoding, equality and element derivation (RFC 9496 sec. 4.3), hashing to
// the group (RFC 9380 sec. 6.8.1) and the group operations, on the formulas of edwards.h.
#include "veil/ec/ristretto.h"

#include <string>

#include "edwards.h"
#include "veil/base/status.h"
#include "veil/crypto/hash.h"

namespace veil::ec {

using crypto::Fe25519;
using crypto::FeAbs;
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
using crypto::kFeSqrtM1;
using crypto::kFeZero;

namespace {

// RFC 9496 sec. 4.3.1 steps 1-2 and 4: decodes and checks; the point, or nothing.
Result<RistrettoPoint::Edwards> DecodeEdwards(const CompressedRistretto::Bytes& bytes) {
  const Fe25519 s = FeFromBytes(bytes);
  // Canonical: re-encoding gives the same bytes (this also rejects bit 255 set), and s >= 0.
  // Encodings are public, so these verdicts may branch.
  if (FeToBytes(s) != bytes || FeIsNegative(s) != 0) {
    return InvalidArgument("ristretto255: non-canonical encoding");
  }
  const Fe25519 ss = FeSquare(s);
  const Fe25519 u1 = FeSub(kFeOne, ss);
  const Fe25519 u2 = FeAdd(kFeOne, ss);
  const Fe25519 u2_sqr = FeSquare(u2);
  const Fe25519 v = FeSub(FeNeg(FeMul(internal::kD, FeSquare(u1))), u2_sqr);
  const crypto::FeSqrtRatio inv = FeSqrtRatioM1(kFeOne, FeMul(v, u2_sqr));
  const Fe25519 den_x = FeMul(inv.r, u2);
  const Fe25519 den_y = FeMul(FeMul(inv.r, den_x), v);
  const Fe25519 x = FeAbs(FeMul(FeAdd(s, s), den_x));
  const Fe25519 y = FeMul(u1, den_y);
  const Fe25519 t = FeMul(x, y);
  if (inv.was_square == 0 || FeIsNegative(t) != 0 || FeIsZero(y) != 0) {
    return InvalidArgument("ristretto255: bytes encode no group element");
  }
  return RistrettoPoint::Edwards{x, y, kFeOne, t};
}

// MAP of RFC 9496 sec. 4.3.4 (Elligator 2 onto the Jacobi quartic, then to the curve).
RistrettoPoint::Edwards Map(const Fe25519& t) {
  const Fe25519 r = FeMul(kFeSqrtM1, FeSquare(t));
  const Fe25519 u = FeMul(FeAdd(r, kFeOne), internal::kOneMinusDSq);
  const Fe25519 v = FeMul(FeSub(FeNeg(kFeOne), FeMul(r, internal::kD)), FeAdd(r, internal::kD));
  const crypto::FeSqrtRatio sr = FeSqrtRatioM1(u, v);
  const Fe25519 s_prime = FeNeg(FeAbs(FeMul(sr.r, t)));
  const Fe25519 s = FeSelect(s_prime, sr.r, sr.was_square);
  const Fe25519 c = FeSelect(r, FeNeg(kFeOne), sr.was_square);
  const Fe25519 n = FeSub(FeMul(FeMul(c, FeSub(r, kFeOne)), internal::kDMinusOneSq), v);
  const Fe25519 w0 = FeMul(FeAdd(s, s), v);
  const Fe25519 w1 = FeMul(n, internal::kSqrtAdMinusOne);
  const Fe25519 ss = FeSquare(s);
  const Fe25519 w2 = FeSub(kFeOne, ss);
  const Fe25519 w3 = FeAdd(kFeOne, ss);
  return {FeMul(w0, w3), FeMul(w2, w1), FeMul(w1, w3), FeMul(w0, w2)};
}

// expand_message_xmd with SHA-512 for 64 output bytes (RFC 9380 sec. 5.3.1; ell = 1).
std::array<std::uint8_t, 64> ExpandMessageXmdSha512(ByteView msg, ByteView dst) {
  VEIL_CHECK_MSG(!dst.empty() && dst.size() <= 255, "hash to group: DST must be 1..255 bytes");
  const std::uint8_t dst_len = static_cast<std::uint8_t>(dst.size());
  const std::array<std::uint8_t, 128> z_pad{};
  const std::array<std::uint8_t, 3> len_and_zero = {0, 64, 0};  // I2OSP(64, 2) || I2OSP(0, 1)
  crypto::Sha2 h(crypto::HashAlg::kSha512);
  h.Update(z_pad).Update(msg).Update(len_and_zero).Update(dst).Update(ByteView(&dst_len, 1));
  std::array<std::uint8_t, 64> b0;
  h.Final(b0);
  h.Reset();
  const std::uint8_t one = 1;
  h.Update(b0).Update(ByteView(&one, 1)).Update(dst).Update(ByteView(&dst_len, 1));
  std::array<std::uint8_t, 64> b1;
  h.Final(b1);
  return b1;
}

}  // namespace

Result<CompressedRistretto> CompressedRistretto::FromBytes(ByteView b) {
  if (b.size() != kSize) return InvalidArgument("ristretto255: an encoding is 32 bytes");
  Bytes bytes;
  std::copy(b.begin(), b.end(), bytes.begin());
  return CompressedRistretto(bytes);
}

Result<RistrettoPoint> CompressedRistretto::Decode() const {
  VEIL_ASSIGN_OR_RETURN(RistrettoPoint::Edwards e, DecodeEdwards(bytes_));
  return RistrettoPoint::FromEdwardsUnchecked(e);
}

RistrettoPoint::RistrettoPoint() : e_(internal::kIdentity) {}

RistrettoPoint RistrettoPoint::Generator() { return RistrettoPoint(internal::kBasepoint); }

Result<RistrettoPoint> RistrettoPoint::Decode(ByteView bytes) {
  VEIL_ASSIGN_OR_RETURN(CompressedRistretto c, CompressedRistretto::FromBytes(bytes));
  return c.Decode();
}

RistrettoPoint RistrettoPoint::FromUniformBytes(std::span<const std::uint8_t, 64> bytes) {
  // FeFromBytes ignores bit 255, as the RFC's masking of the last byte does.
  const Edwards p1 = Map(FeFromBytes(bytes.first<32>()));
  const Edwards p2 = Map(FeFromBytes(bytes.last<32>()));
  return RistrettoPoint(internal::AddExt(p1, p2));
}

RistrettoPoint RistrettoPoint::HashToGroup(ByteView msg, ByteView dst) {
  return FromUniformBytes(ExpandMessageXmdSha512(msg, dst));
}

CompressedRistretto RistrettoPoint::Encode() const {
  const Edwards& p = e_;
  const Fe25519 u1 = FeMul(FeAdd(p.z, p.y), FeSub(p.z, p.y));
  const Fe25519 u2 = FeMul(p.x, p.y);
  const crypto::FeSqrtRatio inv = FeSqrtRatioM1(kFeOne, FeMul(u1, FeSquare(u2)));
  const Fe25519 den1 = FeMul(inv.r, u1);
  const Fe25519 den2 = FeMul(inv.r, u2);
  const Fe25519 z_inv = FeMul(FeMul(den1, den2), p.t);
  const Fe25519 ix0 = FeMul(p.x, kFeSqrtM1);
  const Fe25519 iy0 = FeMul(p.y, kFeSqrtM1);
  const Fe25519 enchanted_denominator = FeMul(den1, internal::kInvSqrtAMinusD);
  const std::uint64_t rotate = FeIsNegative(FeMul(p.t, z_inv));
  const Fe25519 x = FeSelect(p.x, iy0, rotate);
  Fe25519 y = FeSelect(p.y, ix0, rotate);
  const Fe25519 den_inv = FeSelect(den2, enchanted_denominator, rotate);
  y = FeSelect(y, FeNeg(y), FeIsNegative(FeMul(x, z_inv)));
  const Fe25519 s = FeAbs(FeMul(den_inv, FeSub(p.z, y)));
  return CompressedRistretto(FeToBytes(s));
}

std::vector<CompressedRistretto> RistrettoPoint::EncodeBatch(
    std::span<const RistrettoPoint> points) {
  std::vector<CompressedRistretto> out;
  out.reserve(points.size());
  for (const RistrettoPoint& p : points) out.push_back(p.Encode());
  return out;
}

Result<std::vector<RistrettoPoint>> RistrettoPoint::DecodeBatch(
    std::span<const CompressedRistretto> encodings) {
  std::vector<RistrettoPoint> out;
  out.reserve(encodings.size());
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    Result<RistrettoPoint> p = encodings[i].Decode();
    if (!p.ok()) {
      return InvalidArgument("ristretto255: encoding " + std::to_string(i) + " is invalid");
    }
    out.push_back(*p);
  }
  return out;
}

RistrettoPoint RistrettoPoint::operator+(const RistrettoPoint& b) const {
  return RistrettoPoint(internal::AddExt(e_, b.e_));
}

RistrettoPoint RistrettoPoint::operator-(const RistrettoPoint& b) const {
  return RistrettoPoint(internal::ToExtended(internal::Sub(e_, internal::ToNiels(b.e_))));
}

RistrettoPoint RistrettoPoint::operator-() const { return RistrettoPoint(internal::NegExt(e_)); }

RistrettoPoint RistrettoPoint::Double() const { return RistrettoPoint(internal::DoubleExt(e_)); }

bool operator==(const RistrettoPoint& a, const RistrettoPoint& b) {
  // Same element iff X1 Y2 = Y1 X2 or Y1 Y2 = X1 X2 (RFC 9496 sec. 4.3.3).
  const RistrettoPoint::Edwards& p = a.e_;
  const RistrettoPoint::Edwards& q = b.e_;
  const std::uint64_t eq1 = FeEqual(FeMul(p.x, q.y), FeMul(p.y, q.x));
  const std::uint64_t eq2 = FeEqual(FeMul(p.y, q.y), FeMul(p.x, q.x));
  return (eq1 | eq2) != 0;
}

bool RistrettoPoint::IsIdentity() const { return *this == RistrettoPoint(); }

RistrettoPoint RistrettoPoint::Select(const RistrettoPoint& a, const RistrettoPoint& b,
                                      std::uint64_t choice) {
  return RistrettoPoint(internal::SelectExt(a.e_, b.e_, choice));
}

RistrettoPoint Sum(std::span<const RistrettoPoint> points) {
  RistrettoPoint::Edwards acc = internal::kIdentity;
  for (const RistrettoPoint& p : points) acc = internal::AddExt(acc, p.edwards());
  return RistrettoPoint::FromEdwardsUnchecked(acc);
}

}  // namespace veil::ec
