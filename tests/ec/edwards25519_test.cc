// edwards25519: the RFC 8032 codec and every group operation against libsodium's Ed25519 group
// functions on random inputs, the eight small-order points, points with a torsion component,
// non-canonical encodings (y >= p, x = 0 with the sign bit), exact projective equality, and the
// base point against libsodium's key generation.
#include "veil/ec/edwards25519.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "ec/ec_test_util.h"
#include "veil/base/encoding.h"
#include "veil/crypto/random.h"

namespace veil::ec {
namespace {

using Bytes32 = std::array<std::uint8_t, 32>;

using testing_util::Hex32;

Bytes32 RandomValidPoint() {
  Bytes32 b;
  crypto_core_ed25519_random(b.data());
  return b;
}

Bytes32 RandomScalarBytes() {
  Bytes32 b;
  crypto_core_ed25519_scalar_random(b.data());
  return b;
}

EdwardsPoint P(const Bytes32& b) { return EdwardsPoint::Decode(b).value(); }
Scalar S(const Bytes32& b) { return Scalar::FromCanonical(b).value(); }

// The eight points of order dividing 8: y = 1 (the identity), y = -1 (order 2), y = 0 with both
// signs of x = sqrt(-1) (order 4), and two y values of the order-8 points, each with both signs.
// The y values are libsodium's small-order blocklist (ed25519_ref10.c).
std::vector<Bytes32> SmallOrderEncodings() {
  const Bytes32 y8a = Hex32("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05");
  const Bytes32 y8b = Hex32("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a");
  const Bytes32 one = Hex32("0100000000000000000000000000000000000000000000000000000000000000");
  const Bytes32 minus_one =
      Hex32("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  const Bytes32 zero{};
  std::vector<Bytes32> out = {one, minus_one, zero, y8a, y8b};
  for (Bytes32 b : {zero, y8a, y8b}) {
    b[31] |= 0x80;
    out.push_back(b);
  }
  return out;
}

class Edwards25519Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(Edwards25519Test, IdentityAndBasepoint) {
  const Bytes32 id_enc = Hex32("0100000000000000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(EdwardsPoint().Encode().bytes(), id_enc);
  EXPECT_EQ(CompressedEdwardsY().bytes(), id_enc);
  EXPECT_TRUE(P(id_enc).IsIdentity());
  EXPECT_TRUE(EdwardsPoint().IsTorsionFreeVartime());
  // B = [1]B through libsodium.
  Bytes32 one{};
  one[0] = 1;
  Bytes32 b_enc;
  ASSERT_EQ(crypto_scalarmult_ed25519_base_noclamp(b_enc.data(), one.data()), 0);
  EXPECT_EQ(EdwardsPoint::Basepoint().Encode().bytes(), b_enc);
  EXPECT_EQ(b_enc, Hex32("5866666666666666666666666666666666666666666666666666666666666666"));
  EXPECT_TRUE(EdwardsPoint::Basepoint().IsTorsionFreeVartime());
  EXPECT_FALSE(EdwardsPoint::Basepoint().IsSmallOrder());
}

TEST_F(Edwards25519Test, RandomPointsRoundTripAndMatchLibsodium) {
  for (int i = 0; i < 300; ++i) {
    const Bytes32 a = RandomValidPoint(), b = RandomValidPoint();
    const EdwardsPoint pa = P(a), pb = P(b);
    ASSERT_EQ(pa.Encode().bytes(), a);
    ASSERT_TRUE(pa.IsTorsionFreeVartime());
    ASSERT_FALSE(pa.IsSmallOrder());
    Bytes32 sum, diff;
    ASSERT_EQ(crypto_core_ed25519_add(sum.data(), a.data(), b.data()), 0);
    ASSERT_EQ(crypto_core_ed25519_sub(diff.data(), a.data(), b.data()), 0);
    ASSERT_EQ((pa + pb).Encode().bytes(), sum);
    ASSERT_EQ((pa - pb).Encode().bytes(), diff);
    ASSERT_EQ((pa + pa).Encode().bytes(), pa.Double().Encode().bytes());
    ASSERT_TRUE((pa - pa).IsIdentity());
    ASSERT_TRUE(-pa + pa == EdwardsPoint::Identity());
    ASSERT_FALSE(pa == pb);
    ASSERT_TRUE(pa == P(a));
    ASSERT_EQ(EdwardsPoint::Select(pa, pb, 1).Encode().bytes(), b);
    ASSERT_EQ(EdwardsPoint::Select(pa, pb, 0).Encode().bytes(), a);
  }
}

TEST_F(Edwards25519Test, EncodeBatchMatchesEncodeOnEachPoint) {
  EXPECT_TRUE(EdwardsPoint::EncodeBatch({}).empty());
  std::vector<EdwardsPoint> points = {EdwardsPoint::Identity(), EdwardsPoint::Basepoint()};
  // Sums, so that Z is not 1 and differs between points.
  for (int i = 0; i < 40; ++i) points.push_back(P(RandomValidPoint()) + P(RandomValidPoint()));
  points.push_back(-points.back());
  const std::vector<CompressedEdwardsY> batch = EdwardsPoint::EncodeBatch(points);
  ASSERT_EQ(batch.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(batch[i].bytes(), points[i].Encode().bytes()) << i;
  }
}

TEST_F(Edwards25519Test, ScalarMultiplicationMatchesLibsodium) {
  for (int i = 0; i < 200; ++i) {
    const Bytes32 s = RandomScalarBytes(), p = RandomValidPoint();
    Bytes32 expect_var, expect_base;
    ASSERT_EQ(crypto_scalarmult_ed25519_noclamp(expect_var.data(), s.data(), p.data()), 0);
    ASSERT_EQ(crypto_scalarmult_ed25519_base_noclamp(expect_base.data(), s.data()), 0);
    ASSERT_EQ((S(s) * P(p)).Encode().bytes(), expect_var);
    ASSERT_EQ(P(p).MulVartime(S(s)).Encode().bytes(), expect_var);
    ASSERT_EQ(EdwardsPoint::MulBase(S(s)).Encode().bytes(), expect_base);
    ASSERT_EQ((S(s) * EdwardsPoint::Basepoint()).Encode().bytes(), expect_base);
  }
  const EdwardsPoint p = P(RandomValidPoint());
  EXPECT_TRUE((Scalar() * p).IsIdentity());
  EXPECT_TRUE(EdwardsPoint::MulBase(Scalar()).IsIdentity());
  EXPECT_TRUE((-Scalar::One() * p) == -p);
  EXPECT_TRUE(p.MulVartime(-Scalar::One()) == -p);
}

TEST_F(Edwards25519Test, Ed25519PublicKeysAreClampedScalarsTimesB) {
  // libsodium's key generation: A = [a]B with a = clamp(SHA-512(seed)[0..32]); B has order l, so
  // [a]B = [a mod l]B.
  for (int i = 0; i < 50; ++i) {
    std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed;
    randombytes_buf(seed.data(), seed.size());
    std::array<std::uint8_t, crypto_sign_PUBLICKEYBYTES> pk;
    std::array<std::uint8_t, crypto_sign_SECRETKEYBYTES> sk;
    ASSERT_EQ(crypto_sign_seed_keypair(pk.data(), sk.data(), seed.data()), 0);
    std::array<std::uint8_t, 64> h;
    crypto_hash_sha512(h.data(), seed.data(), seed.size());
    Bytes32 a;
    std::copy(h.begin(), h.begin() + 32, a.begin());
    a[0] &= 248;
    a[31] &= 127;
    a[31] |= 64;
    const Bytes32 pk32(pk);
    ASSERT_EQ(EdwardsPoint::MulBase(Scalar::FromBytesModOrder(a)).Encode().bytes(), pk32);
    ASSERT_TRUE(P(pk32).IsTorsionFreeVartime());
  }
}

TEST_F(Edwards25519Test, SmallOrderPoints) {
  const std::vector<Bytes32> encodings = SmallOrderEncodings();
  std::set<Bytes32> distinct;
  int order8 = 0;
  for (const Bytes32& b : encodings) {
    auto p = EdwardsPoint::Decode(b);
    ASSERT_TRUE(p.ok()) << HexEncode(b);
    EXPECT_EQ(p->Encode().bytes(), b);
    EXPECT_TRUE(p->IsSmallOrder()) << HexEncode(b);
    EXPECT_TRUE(p->MultiplyByCofactor().IsIdentity());
    EXPECT_EQ(p->IsTorsionFreeVartime(), p->IsIdentity()) << HexEncode(b);
    EXPECT_FALSE(crypto_core_ed25519_is_valid_point(b.data())) << HexEncode(b);
    if (!p->Double().Double().IsIdentity()) ++order8;
    distinct.insert(p->Encode().bytes());
  }
  EXPECT_EQ(distinct.size(), 8U);
  EXPECT_EQ(order8, 4);
}

TEST_F(Edwards25519Test, PointsWithATorsionComponent) {
  // Q = P + T with T of order 8: libsodium's add/sub accept such points (its scalar
  // multiplications do not), so the arithmetic is checked through them: s Q = s P + (s mod 8) T.
  const Bytes32 t_enc = SmallOrderEncodings()[3];
  const EdwardsPoint t = P(t_enc);
  for (int i = 0; i < 100; ++i) {
    const Bytes32 p_enc = RandomValidPoint(), r_enc = RandomValidPoint();
    Bytes32 q_enc;
    ASSERT_EQ(crypto_core_ed25519_add(q_enc.data(), p_enc.data(), t_enc.data()), 0);
    const EdwardsPoint q = P(q_enc);
    ASSERT_TRUE(q == P(p_enc) + t);
    ASSERT_FALSE(q.IsTorsionFreeVartime());
    ASSERT_FALSE(q.IsSmallOrder());
    ASSERT_FALSE(crypto_core_ed25519_is_valid_point(q_enc.data()));
    // [8]Q = [8]P.
    Bytes32 eight{};
    eight[0] = 8;
    Bytes32 p8;
    ASSERT_EQ(crypto_scalarmult_ed25519_noclamp(p8.data(), eight.data(), p_enc.data()), 0);
    ASSERT_EQ(q.MultiplyByCofactor().Encode().bytes(), p8);
    // Addition and subtraction with another point.
    Bytes32 sum, diff;
    ASSERT_EQ(crypto_core_ed25519_add(sum.data(), q_enc.data(), r_enc.data()), 0);
    ASSERT_EQ(crypto_core_ed25519_sub(diff.data(), q_enc.data(), r_enc.data()), 0);
    ASSERT_EQ((q + P(r_enc)).Encode().bytes(), sum);
    ASSERT_EQ((q - P(r_enc)).Encode().bytes(), diff);
    // s Q through libsodium: s P, plus T added (s mod 8) times.
    const Bytes32 s = RandomScalarBytes();
    Bytes32 expect;
    ASSERT_EQ(crypto_scalarmult_ed25519_noclamp(expect.data(), s.data(), p_enc.data()), 0);
    for (unsigned k = 0; k < (s[0] & 7u); ++k) {
      ASSERT_EQ(crypto_core_ed25519_add(expect.data(), expect.data(), t_enc.data()), 0);
    }
    ASSERT_EQ((S(s) * q).Encode().bytes(), expect);
    ASSERT_EQ(q.MulVartime(S(s)).Encode().bytes(), expect);
  }
}

TEST_F(Edwards25519Test, RandomBytesDecodeLikeLibsodium) {
  // libsodium's is_valid_point = canonical, on the curve, not of small order, in the prime-order
  // subgroup. Where our strict decoding accepts, libsodium's own decoding (inside add) accepts too
  // and re-encodes to the same bytes; where the y is canonical and we reject, it rejects.
  int decoded = 0, valid = 0;
  for (int i = 0; i < 2000; ++i) {
    Bytes32 b;
    randombytes_buf(b.data(), b.size());
    if (i % 4 == 0) b[31] &= 0x7f;
    const auto p = EdwardsPoint::Decode(b);
    const bool ours_valid = p.ok() && !p->IsSmallOrder() && p->IsTorsionFreeVartime();
    ASSERT_EQ(ours_valid, crypto_core_ed25519_is_valid_point(b.data()) == 1) << HexEncode(b);
    const Bytes32 id = EdwardsPoint().Encode().bytes();
    Bytes32 sum;
    const int sodium_ok = crypto_core_ed25519_add(sum.data(), b.data(), id.data());
    if (p.ok()) {
      ++decoded;
      ASSERT_EQ(sodium_ok, 0);
      ASSERT_EQ(sum, b);
      ASSERT_EQ(p->Encode().bytes(), b);
    } else {
      ASSERT_NE(sodium_ok, 0) << HexEncode(b);  // random y is canonical with overwhelming odds
    }
    valid += ours_valid ? 1 : 0;
  }
  // About half of all y have a point, and an eighth of those lie in the subgroup.
  EXPECT_GT(decoded, 800);
  EXPECT_GT(valid, 60);
}

TEST_F(Edwards25519Test, NonCanonicalEncodingsAreRejected) {
  // y = p + k for k = 0..18 (the only 255-bit values >= p), with either sign bit: RFC 8032 sec.
  // 5.1.3 step 1 rejects them even when y mod p is on the curve (y = p + 1 is the identity's y).
  for (std::uint8_t k = 0; k <= 18; ++k) {
    for (std::uint8_t sign = 0; sign < 2; ++sign) {
      Bytes32 b;
      b.fill(0xff);
      b[0] = static_cast<std::uint8_t>(0xed + k);
      b[31] = static_cast<std::uint8_t>(0x7f | (sign << 7));
      EXPECT_FALSE(EdwardsPoint::Decode(b).ok()) << HexEncode(b);
    }
  }
  // x = 0 with the sign bit set: y = 1 and y = -1.
  EXPECT_FALSE(EdwardsPoint::Decode(
                   Hex32("0100000000000000000000000000000000000000000000000000000000000080"))
                   .ok());
  EXPECT_FALSE(EdwardsPoint::Decode(
                   Hex32("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"))
                   .ok());
  // y = 2 has no x (libsodium agrees).
  const Bytes32 y2 = Hex32("0200000000000000000000000000000000000000000000000000000000000000");
  EXPECT_FALSE(EdwardsPoint::Decode(y2).ok());
  const Bytes32 id = EdwardsPoint().Encode().bytes();
  Bytes32 sum;
  EXPECT_NE(crypto_core_ed25519_add(sum.data(), y2.data(), id.data()), 0);
  // Wrong lengths.
  EXPECT_FALSE(EdwardsPoint::Decode(Bytes(31)).ok());
  EXPECT_FALSE(EdwardsPoint::Decode(Bytes(33)).ok());
  EXPECT_FALSE(CompressedEdwardsY::FromBytes(Bytes()).ok());
}

TEST_F(Edwards25519Test, EqualityIsProjective) {
  // The same point with Z scaled by a random factor compares equal; a point and its negation, or
  // the point plus a torsion point, do not.
  for (int i = 0; i < 50; ++i) {
    const EdwardsPoint p = P(RandomValidPoint());
    const EdwardsPoint p2 = (p + EdwardsPoint::Basepoint()) - EdwardsPoint::Basepoint();
    ASSERT_TRUE(p == p2);
    ASSERT_EQ(p.Encode().bytes(), p2.Encode().bytes());
    ASSERT_FALSE(p == -p);
    for (const Bytes32& t : SmallOrderEncodings()) {
      const EdwardsPoint tp = P(t);
      ASSERT_EQ(p == p + tp, tp.IsIdentity());
    }
  }
}

TEST_F(Edwards25519Test, DoubleAndMultiScalarMultiplication) {
  for (int i = 0; i < 100; ++i) {
    const Scalar a = S(RandomScalarBytes()), b = S(RandomScalarBytes());
    const EdwardsPoint big_a = P(RandomValidPoint());
    ASSERT_TRUE(EdwardsPoint::DoubleScalarMulBasepointVartime(a, big_a, b) ==
                a * big_a + EdwardsPoint::MulBase(b));
  }
  // With torsion in the points: the sums are still exact.
  const EdwardsPoint t = P(SmallOrderEncodings()[4]);
  for (const std::size_t n : std::vector<std::size_t>{0, 1, 2, 5, 17, 200}) {
    std::vector<Scalar> s;
    std::vector<EdwardsPoint> pts;
    EdwardsPoint expect;
    for (std::size_t j = 0; j < n; ++j) {
      s.push_back(S(RandomScalarBytes()));
      pts.push_back(P(RandomValidPoint()) + (j % 3 == 0 ? t : EdwardsPoint()));
      expect += s.back() * pts.back();
    }
    ASSERT_TRUE(EdwardsPoint::MultiScalarMulVartime(s, pts) == expect) << "n=" << n;
  }
}

}  // namespace
}  // namespace veil::ec
