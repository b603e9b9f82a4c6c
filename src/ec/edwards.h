// The Edwards-curve formulas under ristretto255 (internal to src/ec). Curve: -x^2 + y^2 = 1 + d x^2
// y^2 over GF(2^255 - 19). Point forms (docs/notes/ec.md has the derivations):
//   Extended   (X : Y : Z : T), x = X/Z, y = Y/Z, XY = ZT           RistrettoPoint::Edwards
//   Projective (X : Y : Z)                                           doubling input
//   Completed  ((X : Z), (Y : T)), x = X/Z, y = Y/T                  output of add and double
//   ProjectiveNiels (Y+X, Y-X, Z, 2dT)                               cached addend
//   AffineNiels     (y+x, y-x, 2dxy)                                 cached addend with Z = 1
// Addition is add-2008-hwcd-3 and doubling dbl-2008-hwcd (Hisil, Wong, Carter, Dawson, 2008)
// with a = -1: complete on this curve, no exceptional cases, constant time.
#pragma once

#include <array>
#include <cstdint>

#include "veil/crypto/fe25519.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"

namespace veil::ec::internal {

using crypto::Fe25519;
using crypto::FeAdd;
using crypto::FeMul;
using crypto::FeNeg;
using crypto::FeSelect;
using crypto::FeSquare;
using crypto::FeSub;
using Extended = RistrettoPoint::Edwards;

// d = -121665/121666, 2d, and the constants of RFC 9496 sec. 4.1, in limbs (radix 2^51).
inline constexpr Fe25519 kD{{929955233495203ULL, 466365720129213ULL, 1662059464998953ULL,
                             2033849074728123ULL, 1442794654840575ULL}};
inline constexpr Fe25519 kD2{{1859910466990425ULL, 932731440258426ULL, 1072319116312658ULL,
                              1815898335770999ULL, 633789495995903ULL}};
inline constexpr Fe25519 kSqrtAdMinusOne{{2241493124984347ULL, 425987919032274ULL,
                                          2207028919301688ULL, 1220490630685848ULL,
                                          974799131293748ULL}};
inline constexpr Fe25519 kInvSqrtAMinusD{{278908739862762ULL, 821645201101625ULL, 8113234426968ULL,
                                          1777959178193151ULL, 2118520810568447ULL}};
inline constexpr Fe25519 kOneMinusDSq{{1136626929484150ULL, 1998550399581263ULL, 496427632559748ULL,
                                       118527312129759ULL, 45110755273534ULL}};
inline constexpr Fe25519 kDMinusOneSq{{1507062230895904ULL, 1572317787530805ULL, 683053064812840ULL,
                                       317374165784489ULL, 1572899562415810ULL}};

// The Ed25519 base point B (y = 4/5, x positive), which is the ristretto255 generator.
inline constexpr Extended kBasepoint{
    {{1738742601995546ULL, 1146398526822698ULL, 2070867633025821ULL, 562264141797630ULL,
      587772402128613ULL}},
    {{1801439850948184ULL, 1351079888211148ULL, 450359962737049ULL, 900719925474099ULL,
      1801439850948198ULL}},
    crypto::kFeOne,
    {{1841354044333475ULL, 16398895984059ULL, 755974180946558ULL, 900171276175154ULL,
      1821297809914039ULL}}};

inline constexpr Extended kIdentity{crypto::kFeZero, crypto::kFeOne, crypto::kFeOne,
                                    crypto::kFeZero};

struct Projective {
  Fe25519 x, y, z;
};
struct Completed {
  Fe25519 x, y, z, t;
};
struct ProjectiveNiels {
  Fe25519 y_plus_x, y_minus_x, z, t2d;
};
struct AffineNiels {
  Fe25519 y_plus_x, y_minus_x, xy2d;
};

inline constexpr ProjectiveNiels kNielsIdentity{crypto::kFeOne, crypto::kFeOne, crypto::kFeOne,
                                                crypto::kFeZero};
inline constexpr AffineNiels kAffineNielsIdentity{crypto::kFeOne, crypto::kFeOne, crypto::kFeZero};

[[gnu::always_inline]] inline Extended ToExtended(const Completed& c) {
  return {FeMul(c.x, c.t), FeMul(c.y, c.z), FeMul(c.z, c.t), FeMul(c.x, c.y)};
}
[[gnu::always_inline]] inline Projective ToProjective(const Completed& c) {
  return {FeMul(c.x, c.t), FeMul(c.y, c.z), FeMul(c.z, c.t)};
}
[[gnu::always_inline]] inline Projective ToProjective(const Extended& e) { return {e.x, e.y, e.z}; }

[[gnu::always_inline]] inline ProjectiveNiels ToNiels(const Extended& e) {
  return {FeAdd(e.y, e.x), FeSub(e.y, e.x), e.z, FeMul(e.t, kD2)};
}

// 2P from projective coordinates.
[[gnu::always_inline]] inline Completed Double(const Projective& p) {
  const Fe25519 xx = FeSquare(p.x);
  const Fe25519 yy = FeSquare(p.y);
  const Fe25519 zz = FeSquare(p.z);
  const Fe25519 zz2 = FeAdd(zz, zz);
  const Fe25519 x_plus_y_sq = FeSquare(FeAdd(p.x, p.y));
  const Fe25519 yy_plus_xx = FeAdd(yy, xx);
  const Fe25519 yy_minus_xx = FeSub(yy, xx);
  return {FeSub(x_plus_y_sq, yy_plus_xx), yy_plus_xx, yy_minus_xx, FeSub(zz2, yy_minus_xx)};
}

[[gnu::always_inline]] inline Completed Add(const Extended& p, const ProjectiveNiels& q) {
  const Fe25519 pp = FeMul(FeAdd(p.y, p.x), q.y_plus_x);
  const Fe25519 mm = FeMul(FeSub(p.y, p.x), q.y_minus_x);
  const Fe25519 tt2d = FeMul(p.t, q.t2d);
  const Fe25519 zz = FeMul(p.z, q.z);
  const Fe25519 zz2 = FeAdd(zz, zz);
  return {FeSub(pp, mm), FeAdd(pp, mm), FeAdd(zz2, tt2d), FeSub(zz2, tt2d)};
}

[[gnu::always_inline]] inline Completed Sub(const Extended& p, const ProjectiveNiels& q) {
  const Fe25519 pm = FeMul(FeAdd(p.y, p.x), q.y_minus_x);
  const Fe25519 mp = FeMul(FeSub(p.y, p.x), q.y_plus_x);
  const Fe25519 tt2d = FeMul(p.t, q.t2d);
  const Fe25519 zz = FeMul(p.z, q.z);
  const Fe25519 zz2 = FeAdd(zz, zz);
  return {FeSub(pm, mp), FeAdd(pm, mp), FeSub(zz2, tt2d), FeAdd(zz2, tt2d)};
}

[[gnu::always_inline]] inline Completed Add(const Extended& p, const AffineNiels& q) {
  const Fe25519 pp = FeMul(FeAdd(p.y, p.x), q.y_plus_x);
  const Fe25519 mm = FeMul(FeSub(p.y, p.x), q.y_minus_x);
  const Fe25519 txy2d = FeMul(p.t, q.xy2d);
  const Fe25519 z2 = FeAdd(p.z, p.z);
  return {FeSub(pp, mm), FeAdd(pp, mm), FeAdd(z2, txy2d), FeSub(z2, txy2d)};
}

[[gnu::always_inline]] inline Completed Sub(const Extended& p, const AffineNiels& q) {
  const Fe25519 pm = FeMul(FeAdd(p.y, p.x), q.y_minus_x);
  const Fe25519 mp = FeMul(FeSub(p.y, p.x), q.y_plus_x);
  const Fe25519 txy2d = FeMul(p.t, q.xy2d);
  const Fe25519 z2 = FeAdd(p.z, p.z);
  return {FeSub(pm, mp), FeAdd(pm, mp), FeSub(z2, txy2d), FeAdd(z2, txy2d)};
}

[[gnu::always_inline]] inline Extended AddExt(const Extended& p, const Extended& q) {
  return ToExtended(Add(p, ToNiels(q)));
}

[[gnu::always_inline]] inline Extended DoubleExt(const Extended& p) {
  return ToExtended(Double(ToProjective(p)));
}

// 2^k P (k >= 1) by k doublings through projective coordinates: only the last goes to extended.
inline Extended Times2k(const Extended& p, unsigned k) {
  Completed c = Double(ToProjective(p));
  for (unsigned i = 1; i < k; ++i) c = Double(ToProjective(c));
  return ToExtended(c);
}

[[gnu::always_inline]] inline Extended NegExt(const Extended& p) {
  return {FeNeg(p.x), p.y, p.z, FeNeg(p.t)};
}

[[gnu::always_inline]] inline ProjectiveNiels NegNiels(const ProjectiveNiels& n) {
  return {n.y_minus_x, n.y_plus_x, n.z, FeNeg(n.t2d)};
}
[[gnu::always_inline]] inline AffineNiels NegNiels(const AffineNiels& n) {
  return {n.y_minus_x, n.y_plus_x, FeNeg(n.xy2d)};
}

[[gnu::always_inline]] inline Extended SelectExt(const Extended& a, const Extended& b,
                                                 std::uint64_t choice) {
  return {FeSelect(a.x, b.x, choice), FeSelect(a.y, b.y, choice), FeSelect(a.z, b.z, choice),
          FeSelect(a.t, b.t, choice)};
}
[[gnu::always_inline]] inline ProjectiveNiels SelectNiels(const ProjectiveNiels& a,
                                                          const ProjectiveNiels& b,
                                                          std::uint64_t choice) {
  return {FeSelect(a.y_plus_x, b.y_plus_x, choice), FeSelect(a.y_minus_x, b.y_minus_x, choice),
          FeSelect(a.z, b.z, choice), FeSelect(a.t2d, b.t2d, choice)};
}
[[gnu::always_inline]] inline AffineNiels SelectNiels(const AffineNiels& a, const AffineNiels& b,
                                                      std::uint64_t choice) {
  return {FeSelect(a.y_plus_x, b.y_plus_x, choice), FeSelect(a.y_minus_x, b.y_minus_x, choice),
          FeSelect(a.xy2d, b.xy2d, choice)};
}

// The digit's multiple from table[k] = (k + 1) P, k = 0..7, for a digit in [-8, 8]: every entry
// is read, the match chosen by masks, and the sign applied by a masked swap and negation.
template <typename Niels, typename Identity>
[[gnu::always_inline]] inline Niels LookupSigned(const std::array<Niels, 8>& table,
                                                 std::int8_t digit, const Identity& identity) {
  const auto d = static_cast<std::int64_t>(digit);
  const std::uint64_t negative = static_cast<std::uint64_t>(d) >> 63;
  const auto abs = static_cast<std::uint64_t>(d - ((2 * d) & -static_cast<std::int64_t>(negative)));
  Niels r = identity;
  for (std::uint64_t k = 0; k < 8; ++k) {
    const std::uint64_t diff = abs ^ (k + 1);
    const std::uint64_t eq = ((diff | (0 - diff)) >> 63) ^ 1;  // 1 when abs == k + 1
    r = SelectNiels(r, table[k], eq);
  }
  return SelectNiels(r, NegNiels(r), negative);
}

// A point P prepared for many [a]P + [b]B with public a, b < 2^253 (an Ed25519 key, ed25519.cc):
// the odd multiples P .. 31 P and those of 2^128 P, in affine Niels form. The double-base
// multiplication then splits each scalar at bit 128 and runs four NAFs over one loop of about 128
// doublings instead of 253 (scalar_mul.cc; docs/notes/ec.md, "Ed25519 verification"). Exact on
// every curve point, torsion included: the split is an identity of integers, nothing is reduced
// mod l.
struct HalvedBase {
  static constexpr std::size_t kOdd = 16;  // NAF-6
  std::array<AffineNiels, kOdd> lo;
  std::array<AffineNiels, kOdd> hi;
};
HalvedBase PrepareHalvedBase(const Extended& p);
// [a]P + [b]B. Variable time: public scalars only.
Extended DoubleBaseHalvedVartime(const Scalar& a, const HalvedBase& p, const Scalar& b);

}  // namespace veil::ec::internal
