// Scalars mod l against libsodium's crypto_core_ristretto255_scalar_* on random inputs, canonical
// decoding at the boundary, batch inversion with zeros, and the digit recodings.
#include "veil/ec/scalar.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <vector>

#include "veil/crypto/random.h"

namespace veil::ec {
namespace {

using Bytes32 = std::array<std::uint8_t, 32>;

class ScalarTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

Bytes32 RandomCanonical() {
  Bytes32 b;
  crypto_core_ristretto255_scalar_random(b.data());
  return b;
}

Scalar S(const Bytes32& b) { return Scalar::FromCanonical(b).value(); }

TEST_F(ScalarTest, ArithmeticMatchesLibsodium) {
  for (int i = 0; i < 5000; ++i) {
    const Bytes32 a = RandomCanonical(), b = RandomCanonical();
    Bytes32 sum, diff, prod, neg, inv;
    crypto_core_ristretto255_scalar_add(sum.data(), a.data(), b.data());
    crypto_core_ristretto255_scalar_sub(diff.data(), a.data(), b.data());
    crypto_core_ristretto255_scalar_mul(prod.data(), a.data(), b.data());
    crypto_core_ristretto255_scalar_negate(neg.data(), a.data());
    ASSERT_EQ(crypto_core_ristretto255_scalar_invert(inv.data(), a.data()), 0);
    ASSERT_EQ((S(a) + S(b)).ToBytes(), sum);
    ASSERT_EQ((S(a) - S(b)).ToBytes(), diff);
    ASSERT_EQ((S(a) * S(b)).ToBytes(), prod);
    ASSERT_EQ((-S(a)).ToBytes(), neg);
    if (i % 10 == 0) {
      ASSERT_EQ(S(a).Invert().ToBytes(), inv);
    }
    ASSERT_EQ(S(a).ToBytes(), a);
  }
}

TEST_F(ScalarTest, ReductionMatchesLibsodium) {
  for (int i = 0; i < 5000; ++i) {
    std::array<std::uint8_t, 64> wide;
    crypto::RandomBytes(wide);
    if (i == 0) wide.fill(0xff);
    Bytes32 expect;
    crypto_core_ristretto255_scalar_reduce(expect.data(), wide.data());
    ASSERT_EQ(Scalar::FromBytesModOrderWide(wide).ToBytes(), expect);
    Bytes32 narrow;
    std::copy(wide.begin(), wide.begin() + 32, narrow.begin());
    std::array<std::uint8_t, 64> padded{};
    std::copy(narrow.begin(), narrow.end(), padded.begin());
    crypto_core_ristretto255_scalar_reduce(expect.data(), padded.data());
    ASSERT_EQ(Scalar::FromBytesModOrder(narrow).ToBytes(), expect);
  }
}

TEST_F(ScalarTest, CanonicalDecodingRejectsOrderAndAbove) {
  Bytes32 l = kGroupOrderBytes;
  EXPECT_FALSE(Scalar::FromCanonical(l).ok());  // l itself
  l[0] = static_cast<std::uint8_t>(l[0] - 1);
  ASSERT_TRUE(Scalar::FromCanonical(l).ok());  // l - 1
  EXPECT_EQ(Scalar::FromCanonical(l).value(), -Scalar::One());
  l = kGroupOrderBytes;
  l[0] = static_cast<std::uint8_t>(l[0] + 1);
  EXPECT_FALSE(Scalar::FromCanonical(l).ok());  // l + 1
  Bytes32 top{};
  top[31] = 0x80;
  EXPECT_FALSE(Scalar::FromCanonical(top).ok());  // 2^255
  Bytes32 ones;
  ones.fill(0xff);
  EXPECT_FALSE(Scalar::FromCanonical(ones).ok());
  top[31] = 0x10;
  EXPECT_TRUE(Scalar::FromCanonical(top).ok());  // 2^252 < l
}

TEST_F(ScalarTest, BatchInvertWithZeros) {
  std::vector<Scalar> v;
  for (int i = 0; i < 50; ++i) v.push_back(Scalar::Random());
  v[0] = Scalar();
  v[17] = Scalar();
  v[49] = Scalar::One();
  std::vector<Scalar> inv = v;
  Scalar::BatchInvert(inv);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i].IsZero()) {
      EXPECT_TRUE(inv[i].IsZero());
    } else {
      EXPECT_EQ(inv[i], v[i].Invert());
      EXPECT_EQ(inv[i] * v[i], Scalar::One());
    }
  }
  std::vector<Scalar> empty;
  Scalar::BatchInvert(empty);
}

TEST_F(ScalarTest, RecodingsReconstructTheValue) {
  for (int i = 0; i < 300; ++i) {
    Scalar s = Scalar::Random();
    if (i == 0) s = -Scalar::One();
    if (i == 1) s = Scalar();
    const auto r16 = s.ToRadix16();
    Scalar acc, pow16 = Scalar::One();
    for (std::size_t k = 0; k < 64; ++k) {
      ASSERT_GE(r16[k], -8);
      ASSERT_LT(r16[k], 8);
      const Scalar digit =
          Scalar::FromUint64(static_cast<std::uint64_t>(r16[k] < 0 ? -r16[k] : r16[k]));
      acc += r16[k] < 0 ? -(digit * pow16) : digit * pow16;
      pow16 *= Scalar::FromUint64(16);
    }
    ASSERT_EQ(acc, s);
    for (int w = 2; w <= 8; ++w) {
      const auto naf = s.ToNafVartime(w);
      Scalar nacc, pow2 = Scalar::One();
      for (std::size_t k = 0; k < 256; ++k) {
        const int d = naf[k];
        if (d != 0) {
          ASSERT_EQ(d % 2 != 0, true);
          ASSERT_LT(d < 0 ? -d : d, 1 << (w - 1));
          const Scalar digit = Scalar::FromUint64(static_cast<std::uint64_t>(d < 0 ? -d : d));
          nacc += d < 0 ? -(digit * pow2) : digit * pow2;
        }
        pow2 += pow2;
      }
      ASSERT_EQ(nacc, s) << "w=" << w;
    }
    const Scalar::Bytes b = s.ToBytes();
    for (std::size_t k = 0; k < 256; ++k) {
      ASSERT_EQ(s.Bit(k), (static_cast<unsigned>(b[k / 8]) >> (k % 8)) & 1U);
    }
  }
}

TEST_F(ScalarTest, SelectWipeAndEquality) {
  const Scalar a = Scalar::Random(), b = Scalar::Random();
  EXPECT_EQ(Scalar::Select(a, b, 0), a);
  EXPECT_EQ(Scalar::Select(a, b, 1), b);
  EXPECT_FALSE(a == b);
  Scalar c = a;
  c.Wipe();
  EXPECT_TRUE(c.IsZero());
  EXPECT_EQ(Scalar::FromUint64(~std::uint64_t{0}).ToBytes()[7], 0xff);
  EXPECT_TRUE(Scalar().Invert().IsZero());
}

}  // namespace
}  // namespace veil::ec
