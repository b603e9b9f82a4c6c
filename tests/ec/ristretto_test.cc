// ristretto255: RFC 9496 vectors, and every operation against libsodium on random inputs.
#include "veil/ec/ristretto.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../src/ec/msm_avx512.h"
#include "veil/base/encoding.h"
#include "veil/crypto/random.h"

namespace veil::ec {
namespace {

using Bytes32 = std::array<std::uint8_t, 32>;

nlohmann::json LoadVectors() {
  std::ifstream in(std::string(VEIL_TEST_DATA_DIR) + "/rfc9496/ristretto255.json");
  return nlohmann::json::parse(in);
}

Bytes32 Hex32(const std::string& s) {
  Bytes b = HexDecode(s).value();
  Bytes32 out{};
  EXPECT_EQ(b.size(), 32U);
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

Bytes32 RandomScalarBytes() {
  Bytes32 b;
  crypto_core_ristretto255_scalar_random(b.data());
  return b;
}

Bytes32 RandomPointBytes() {
  Bytes32 b;
  crypto_core_ristretto255_random(b.data());
  return b;
}

RistrettoPoint P(const Bytes32& b) { return RistrettoPoint::Decode(b).value(); }
Scalar S(const Bytes32& b) { return Scalar::FromCanonical(b).value(); }

class RistrettoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(RistrettoTest, Rfc9496MultiplesOfTheGenerator) {
  const nlohmann::json v = LoadVectors();
  RistrettoPoint acc;
  int n = 0;
  for (const auto& t : v["multiples_of_generator"]["vectors"]) {
    const Bytes32 expected = Hex32(t["encoding"].get<std::string>());
    const int k = t["k"].get<int>();
    EXPECT_EQ(acc.Encode().bytes(), expected) << "k=" << k;
    EXPECT_EQ(BasepointMul(Scalar::FromUint64(static_cast<std::uint64_t>(k))).Encode().bytes(),
              expected);
    EXPECT_EQ((Scalar::FromUint64(static_cast<std::uint64_t>(k)) * RistrettoPoint::Generator())
                  .Encode()
                  .bytes(),
              expected);
    const RistrettoPoint decoded = P(expected);
    EXPECT_TRUE(decoded == acc);
    EXPECT_EQ(decoded.Encode().bytes(), expected);
    acc += RistrettoPoint::Generator();
    ++n;
  }
  EXPECT_EQ(n, 16);
}

TEST_F(RistrettoTest, Rfc9496InvalidEncodingsAreRejected) {
  const nlohmann::json v = LoadVectors();
  int n = 0;
  for (const auto& t : v["invalid_encodings"]["vectors"]) {
    const std::string hex = t.is_string() ? t.get<std::string>() : t["encoding"].get<std::string>();
    const Bytes32 b = Hex32(hex);
    EXPECT_FALSE(RistrettoPoint::Decode(b).ok()) << hex;
    EXPECT_FALSE(crypto_core_ristretto255_is_valid_point(b.data())) << "libsodium agrees: " << hex;
    ++n;
  }
  EXPECT_EQ(n, 29);
}

TEST_F(RistrettoTest, Rfc9496FromUniformBytes) {
  const nlohmann::json v = LoadVectors();
  int n = 0;
  for (const auto& t : v["from_uniform_bytes"]["vectors"]) {
    const Bytes in = HexDecode(t["input"].get<std::string>()).value();
    ASSERT_EQ(in.size(), 64U);
    const RistrettoPoint p =
        RistrettoPoint::FromUniformBytes(std::span<const std::uint8_t, 64>(in));
    EXPECT_EQ(p.Encode().bytes(), Hex32(t["output"].get<std::string>()));
    ++n;
  }
  EXPECT_EQ(n, 7);
}

TEST_F(RistrettoTest, WrongLengthsAreRejected) {
  EXPECT_FALSE(RistrettoPoint::Decode(Bytes(31)).ok());
  EXPECT_FALSE(RistrettoPoint::Decode(Bytes(33)).ok());
  EXPECT_FALSE(RistrettoPoint::Decode(Bytes()).ok());
  EXPECT_FALSE(Scalar::FromCanonical(Bytes(31)).ok());
  EXPECT_FALSE(Scalar::FromCanonical(Bytes(33)).ok());
}

TEST_F(RistrettoTest, GroupOperationsMatchLibsodium) {
  for (int i = 0; i < 2000; ++i) {
    const Bytes32 a = RandomPointBytes(), b = RandomPointBytes();
    Bytes32 sum, diff;
    ASSERT_EQ(crypto_core_ristretto255_add(sum.data(), a.data(), b.data()), 0);
    ASSERT_EQ(crypto_core_ristretto255_sub(diff.data(), a.data(), b.data()), 0);
    const RistrettoPoint pa = P(a), pb = P(b);
    ASSERT_EQ((pa + pb).Encode().bytes(), sum);
    ASSERT_EQ((pa - pb).Encode().bytes(), diff);
    ASSERT_EQ((pa + pa).Encode().bytes(), pa.Double().Encode().bytes());
    ASSERT_TRUE((pa - pa).IsIdentity());
    ASSERT_TRUE(-pa + pa == RistrettoPoint::Identity());
    ASSERT_FALSE(pa == pb);
    ASSERT_EQ(RistrettoPoint::Select(pa, pb, 1).Encode().bytes(), b);
    ASSERT_EQ(RistrettoPoint::Select(pa, pb, 0).Encode().bytes(), a);
  }
}

TEST_F(RistrettoTest, ScalarMultiplicationMatchesLibsodium) {
  for (int i = 0; i < 500; ++i) {
    const Bytes32 s = RandomScalarBytes(), p = RandomPointBytes();
    Bytes32 expect_var, expect_base;
    ASSERT_EQ(crypto_scalarmult_ristretto255(expect_var.data(), s.data(), p.data()), 0);
    ASSERT_EQ(crypto_scalarmult_ristretto255_base(expect_base.data(), s.data()), 0);
    ASSERT_EQ((S(s) * P(p)).Encode().bytes(), expect_var);
    ASSERT_EQ(P(p).MulVartime(S(s)).Encode().bytes(), expect_var);
    ASSERT_EQ(BasepointMul(S(s)).Encode().bytes(), expect_base);
    ASSERT_EQ((S(s) * RistrettoPoint::Generator()).Encode().bytes(), expect_base);
    const FixedBaseTable table(P(p));
    ASSERT_EQ(table.Mul(S(s)).Encode().bytes(), expect_var);
  }
}

TEST_F(RistrettoTest, EdgeScalars) {
  const RistrettoPoint p = P(RandomPointBytes());
  const FixedBaseTable table(p);
  const Scalar zero, one = Scalar::One(), minus_one = -Scalar::One();
  EXPECT_TRUE((zero * p).IsIdentity());
  EXPECT_TRUE(table.Mul(zero).IsIdentity());
  EXPECT_TRUE(BasepointMul(zero).IsIdentity());
  EXPECT_TRUE(p.MulVartime(zero).IsIdentity());
  EXPECT_TRUE(one * p == p);
  EXPECT_TRUE(table.Mul(one) == p);
  EXPECT_TRUE(minus_one * p == -p);
  EXPECT_TRUE(table.Mul(minus_one) == -p);
  EXPECT_TRUE(p.MulVartime(minus_one) == -p);
  EXPECT_TRUE((Scalar::Random() * RistrettoPoint::Identity()).IsIdentity());
  // All-ones digits and the largest scalar.
  Bytes32 b;
  b.fill(0xff);
  const Scalar big = Scalar::FromBytesModOrder(b);
  Bytes32 expect;
  const Bytes32 pb = p.Encode().bytes();
  const Bytes32 big_bytes = big.ToBytes();
  ASSERT_EQ(crypto_scalarmult_ristretto255(expect.data(), big_bytes.data(), pb.data()), 0);
  EXPECT_EQ((big * p).Encode().bytes(), expect);
  EXPECT_EQ(table.Mul(big).Encode().bytes(), expect);
  EXPECT_EQ(p.MulVartime(big).Encode().bytes(), expect);
}

TEST_F(RistrettoTest, DoubleScalarMulBasepoint) {
  for (int i = 0; i < 300; ++i) {
    const Scalar a = Scalar::Random(), b = Scalar::Random();
    const RistrettoPoint big_a = P(RandomPointBytes());
    const RistrettoPoint expect = a * big_a + BasepointMul(b);
    ASSERT_TRUE(DoubleScalarMulBasepointVartime(a, big_a, b) == expect);
  }
  const RistrettoPoint big_a = P(RandomPointBytes());
  EXPECT_TRUE(DoubleScalarMulBasepointVartime(Scalar(), big_a, Scalar()).IsIdentity());
  EXPECT_TRUE(DoubleScalarMulBasepointVartime(Scalar::One(), big_a, Scalar()) == big_a);
  EXPECT_TRUE(DoubleScalarMulBasepointVartime(Scalar(), big_a, Scalar::One()) ==
              RistrettoPoint::Generator());
}

RistrettoPoint NaiveSum(std::span<const Scalar> s, std::span<const RistrettoPoint> p) {
  RistrettoPoint acc;
  for (std::size_t i = 0; i < s.size(); ++i) acc += s[i] * p[i];
  return acc;
}

// An MSM of n terms over 16 repeated points, s_i P_(i mod 16), and its sum by 16 multiplications:
// sum_k (sum of the s_i with i mod 16 = k) P_k. Cheap to check at any size.
struct FoldedMsm {
  std::vector<Scalar> s;
  std::vector<RistrettoPoint> p;
  RistrettoPoint expect;
};
template <typename ScalarOf>
FoldedMsm MakeFoldedMsm(const std::vector<RistrettoPoint>& base, std::size_t n, ScalarOf scalar) {
  FoldedMsm m{std::vector<Scalar>(n), std::vector<RistrettoPoint>(n), {}};
  std::vector<Scalar> folded(base.size());
  for (std::size_t i = 0; i < n; ++i) {
    m.s[i] = scalar(i);
    m.p[i] = base[i % base.size()];
    folded[i % base.size()] += m.s[i];
  }
  m.expect = NaiveSum(folded, base);
  return m;
}

TEST_F(RistrettoTest, MultiScalarMulMatchesTheNaiveSum) {
  // Around the Straus/Pippenger switch and every Pippenger window size, up to 4096.
  const std::vector<std::size_t> sizes = {1,   2,   3,   4,    5,    7,    8,   16,  31,
                                          64,  100, 149, 150,  151,  199,  200, 256, 699,
                                          700, 799, 800, 1024, 2499, 2500, 4096};
  std::vector<Scalar> scalars;
  std::vector<RistrettoPoint> points;
  for (std::size_t i = 0; i < 4096; ++i) {
    scalars.push_back(Scalar::Random());
    points.push_back(BasepointMul(Scalar::Random()));
  }
  for (const std::size_t n : sizes) {
    std::vector<Scalar> s(scalars.begin(), scalars.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<RistrettoPoint> p(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(n));
    const RistrettoPoint random_sum = NaiveSum(s, p);
    ASSERT_TRUE(MultiScalarMulVartime(s, p) == random_sum) << "n=" << n;
    if (HasAvx512Msm()) {
      ASSERT_TRUE(MultiScalarMulVartime(s, p, MsmAlgorithm::kPippengerAvx512) == random_sum)
          << "Pippenger AVX-512, random scalars, n=" << n;
    }
    // Edge cases in the same sum: zero scalars, one and minus one, the identity, repeats.
    s[0] = Scalar();
    if (n > 1) s[1] = Scalar::One();
    if (n > 2) s[2] = -Scalar::One();
    if (n > 3) p[3] = RistrettoPoint::Identity();
    if (n > 5) p[5] = p[4];
    if (n > 6) s[6] = s[4];
    if (n > 7) p[7] = -p[4];
    const RistrettoPoint expect = NaiveSum(s, p);
    ASSERT_TRUE(MultiScalarMulVartime(s, p) == expect) << "edge n=" << n;
    // Each algorithm at every size, not only where the automatic choice takes it.
    ASSERT_TRUE(MultiScalarMulVartime(s, p, MsmAlgorithm::kStraus) == expect) << "Straus n=" << n;
    ASSERT_TRUE(MultiScalarMulVartime(s, p, MsmAlgorithm::kPippenger) == expect)
        << "Pippenger n=" << n;
    if (HasAvx512Msm()) {
      ASSERT_TRUE(MultiScalarMulVartime(s, p, MsmAlgorithm::kPippengerAvx512) == expect)
          << "Pippenger AVX-512 n=" << n;
    }
    std::fill(s.begin(), s.end(), Scalar());
    ASSERT_TRUE(MultiScalarMulVartime(s, p).IsIdentity()) << "all zero n=" << n;
  }
  EXPECT_TRUE(MultiScalarMulVartime({}, {}).IsIdentity());
}

// Scalars just below l (bit 252 set, so every top window is nonzero; random scalars almost never
// are) at sizes that run every window width of both Pippengers, against a naive sum made cheap by
// repeating 16 points (as in MultiScalarMulWidestWindows below).
TEST_F(RistrettoTest, MultiScalarMulScalarsNearTheOrder) {
  std::vector<RistrettoPoint> base;
  for (std::size_t k = 0; k < 16; ++k) base.push_back(BasepointMul(Scalar::Random()));
  for (const std::size_t n :
       std::vector<std::size_t>{1, 2, 3, 4, 7, 16, 64, 150, 256, 1024, 2500, 4096, 10000, 70000}) {
    // l - 1, l - 4, ...
    const FoldedMsm m =
        MakeFoldedMsm(base, n, [](std::size_t i) { return -Scalar::FromUint64(1 + 3 * i); });
    if (n <= 4096) {
      EXPECT_TRUE(MultiScalarMulVartime(m.s, m.p, MsmAlgorithm::kStraus) == m.expect) << n;
    }
    if (n <= 10000) {
      EXPECT_TRUE(MultiScalarMulVartime(m.s, m.p, MsmAlgorithm::kPippenger) == m.expect) << n;
    }
    if (HasAvx512Msm()) {
      EXPECT_TRUE(MultiScalarMulVartime(m.s, m.p, MsmAlgorithm::kPippengerAvx512) == m.expect) << n;
    }
  }
}

// The eight-lane field at the limb bounds its code states (msm_avx512.cc), against the 64-bit
// field: products of limbs just below 2^52, differences whose subtrahend sits at the bound of
// a + 2p - b, and carries out of every limb.
TEST_F(RistrettoTest, Avx512FieldAtItsBounds) {
  if (!HasAvx512Msm()) GTEST_SKIP() << "no AVX-512 IFMA on this CPU (or VEIL_EC_AVX512=0)";
  using crypto::Fe25519;
  const std::uint64_t m52 = (std::uint64_t{1} << 52) - 1;
  const std::uint64_t m51 = (std::uint64_t{1} << 51) - 1;
  const std::uint64_t tight0 = (std::uint64_t{1} << 51) + (std::uint64_t{1} << 17) - 1;
  const std::vector<Fe25519> mul_inputs = {
      {{m52, m52, m52, m52, m52}}, {{m51, m51, m51, m51, m51}}, {{tight0, m51, m51, m51, m51}},
      {{0, 0, 0, 0, m52}},         {{m52, 0, 0, 0, 0}},         {{1, 0, 0, 0, 0}},
      {{0, 0, 0, 0, 0}},           {{m52, 1, m52, 1, m52}}};
  const std::vector<Fe25519> sub_b = {
      {{(std::uint64_t{1} << 52) - 38, m52 - 1, m52 - 1, m52 - 1, m52 - 1}},
      {{tight0, m51, m51, m51, m51}},
      {{0, 0, 0, 0, 0}}};
  for (const Fe25519& a : mul_inputs) {
    for (const Fe25519& b : mul_inputs) {
      const auto r = internal::Avx512FieldForTest(a, b);
      EXPECT_EQ(crypto::FeToBytes(r.mul), crypto::FeToBytes(crypto::FeMul(a, b)));
      EXPECT_EQ(crypto::FeToBytes(r.add), crypto::FeToBytes(crypto::FeAdd(a, b)));
      for (const std::uint64_t limb : r.mul.v) EXPECT_LT(limb, std::uint64_t{1} << 52);
    }
    for (const Fe25519& b : sub_b) {
      const auto r = internal::Avx512FieldForTest(a, b);
      EXPECT_EQ(crypto::FeToBytes(r.sub), crypto::FeToBytes(crypto::FeSub(a, b)));
      for (const std::uint64_t limb : r.sub.v) EXPECT_LT(limb, std::uint64_t{1} << 52);
    }
  }
  // Random elements with limbs anywhere below 2^52.
  for (int i = 0; i < 2000; ++i) {
    Fe25519 a, b;
    randombytes_buf(a.v.data(), sizeof a.v);
    randombytes_buf(b.v.data(), sizeof b.v);
    for (std::size_t k = 0; k < 5; ++k) {
      a.v[k] &= m52;
      b.v[k] &= m52;
    }
    const auto r = internal::Avx512FieldForTest(a, b);
    ASSERT_EQ(crypto::FeToBytes(r.mul), crypto::FeToBytes(crypto::FeMul(a, b))) << i;
  }
}

// The widest windows (10,000 points and up), against a folded sum (MakeFoldedMsm). Two calls in a
// row also run on the per-thread working memory the first one left.
TEST_F(RistrettoTest, MultiScalarMulWidestWindows) {
  std::vector<RistrettoPoint> base;
  for (std::size_t k = 0; k < 16; ++k) base.push_back(BasepointMul(Scalar::Random()));
  const auto random = [](std::size_t) { return Scalar::Random(); };
  for (const std::size_t n : {std::size_t{10000}, std::size_t{10001}}) {
    const FoldedMsm m = MakeFoldedMsm(base, n, random);
    ASSERT_TRUE(MultiScalarMulVartime(m.s, m.p) == m.expect) << n;
    ASSERT_TRUE(MultiScalarMulVartime(m.s, m.p, MsmAlgorithm::kPippenger) == m.expect) << n;
  }
  // The AVX-512 path sums more than 2^18 points in chunks of 2^18.
  if (HasAvx512Msm()) {
    const FoldedMsm m = MakeFoldedMsm(base, (std::size_t{1} << 18) + 3, random);
    ASSERT_TRUE(MultiScalarMulVartime(m.s, m.p, MsmAlgorithm::kPippengerAvx512) == m.expect);
  }
}

TEST_F(RistrettoTest, ShortScalarMultiplication) {
  std::array<std::uint8_t, 32> b{};
  for (int i = 0; i < 50; ++i) {
    randombytes_buf(b.data(), 16);
    if (i == 0) std::fill(b.begin(), b.begin() + 16, 0xff);  // 2^128 - 1: the top digit carries
    if (i == 1) std::fill(b.begin(), b.begin() + 16, 0x00);
    const Scalar s = Scalar::FromBytesModOrder(b);
    const RistrettoPoint p = BasepointMul(Scalar::Random());
    ASSERT_TRUE(MulShort(s, p) == s * p) << i;
  }
  b[16] = 1;  // 2^128
  EXPECT_DEATH(MulShort(Scalar::FromBytesModOrder(b), RistrettoPoint::Generator()), "2\\^128");
}

TEST_F(RistrettoTest, ConstantTimeMultiScalarMulMatchesTheNaiveSum) {
  for (const std::size_t n : std::vector<std::size_t>{1, 2, 3, 8, 33, 100}) {
    std::vector<Scalar> s;
    std::vector<RistrettoPoint> p;
    for (std::size_t i = 0; i < n; ++i) {
      s.push_back(Scalar::Random());
      p.push_back(BasepointMul(Scalar::Random()));
    }
    ASSERT_TRUE(MultiScalarMul(s, p) == NaiveSum(s, p)) << "n=" << n;
    // Zero, one, l - 1, the identity and repeated points.
    s[0] = Scalar();
    if (n > 1) s[1] = Scalar::One();
    if (n > 2) s[2] = -Scalar::One();
    if (n > 3) p[3] = RistrettoPoint::Identity();
    if (n > 5) p[5] = p[4];
    ASSERT_TRUE(MultiScalarMul(s, p) == NaiveSum(s, p)) << "edge n=" << n;
    // One table, several sums.
    const MultiScalarMulTable table(p);
    EXPECT_EQ(table.size(), n);
    for (int round = 0; round < 3; ++round) {
      for (auto& x : s) x = Scalar::Random();
      ASSERT_TRUE(table.Mul(s) == NaiveSum(s, p)) << "table n=" << n;
    }
  }
  EXPECT_TRUE(MultiScalarMul({}, {}).IsIdentity());
  EXPECT_TRUE(MultiScalarMulTable({}).Mul({}).IsIdentity());
}

TEST_F(RistrettoTest, SumAndBatchCodecs) {
  std::vector<RistrettoPoint> pts;
  RistrettoPoint expect;
  for (int i = 0; i < 300; ++i) {
    pts.push_back(P(RandomPointBytes()));
    expect += pts.back();
  }
  EXPECT_TRUE(Sum(pts) == expect);
  const std::vector<CompressedRistretto> enc = RistrettoPoint::EncodeBatch(pts);
  ASSERT_EQ(enc.size(), pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(enc[i], pts[i].Encode());
  auto dec = RistrettoPoint::DecodeBatch(enc);
  ASSERT_TRUE(dec.ok());
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_TRUE((*dec)[i] == pts[i]);
  std::vector<CompressedRistretto> bad = enc;
  Bytes32 b = bad[17].bytes();
  b[0] ^= 1;  // flips s's sign bit or breaks the encoding; either way not canonical-valid
  bad[17] = CompressedRistretto(b);
  if (!bad[17].Decode().ok()) {
    auto r = RistrettoPoint::DecodeBatch(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("17"), std::string::npos);
  }
}

TEST_F(RistrettoTest, HashToGroupMatchesLibsodiumFromHash) {
  // libsodium's crypto_core_ristretto255_from_hash is the same FromUniformBytes.
  for (int i = 0; i < 500; ++i) {
    std::array<std::uint8_t, 64> h;
    crypto::RandomBytes(h);
    Bytes32 expect;
    ASSERT_EQ(crypto_core_ristretto255_from_hash(expect.data(), h.data()), 0);
    ASSERT_EQ(RistrettoPoint::FromUniformBytes(h).Encode().bytes(), expect);
  }
}

TEST_F(RistrettoTest, EncodingsAreCanonicalForManyRepresentatives) {
  // The same element reached by different coordinates (different Z and coset members) encodes
  // identically: P, P + Q - Q, 2P - P.
  for (int i = 0; i < 200; ++i) {
    const RistrettoPoint p = P(RandomPointBytes()), q = P(RandomPointBytes());
    const CompressedRistretto e = p.Encode();
    EXPECT_EQ((p + q - q).Encode(), e);
    EXPECT_EQ((p.Double() - p).Encode(), e);
    EXPECT_EQ((Scalar::FromUint64(3) * p - p.Double()).Encode(), e);
  }
}

}  // namespace
}  // namespace veil::ec
