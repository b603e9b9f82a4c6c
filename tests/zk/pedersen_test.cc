// Pedersen commitments: the generators against an independent derivation (expand_message_xmd in
// Python, then libsodium's crypto_core_ristretto255_from_hash), distinctness, the homomorphism,
// commitments against libsodium's arithmetic, opening checks, and strict decoding.
#include "veil/zk/pedersen.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::H;
using test::Hx;
using test::TestRng;

// expand_message_xmd(SHA-512, msg, kPedersenDst, 64) computed in Python (docs/notes/sigma.md).
struct GeneratorVector {
  std::string msg;  // "H" or "G" || u32_be(i), as the index
  std::int64_t index;
  const char* uniform_hex;
};
const GeneratorVector kGeneratorVectors[] = {
    {"H", -1,
     "82d3c4af07f0e69c9e8aaba4fb524b7d1318aa22d3f727c77a88df0d0039423f1fce206ed9b110492b05fb585d735"
     "c"
     "ba8832ad3b92c6c649fa10b2343f41f8e5"},
    {"G", 0,
     "b87a04d20c2b2c8f9c9590dcf666390d47a93fc4c89c023b3fcde440c0782fbc57d56ce44bd2289f406ec6bcf9986"
     "3"
     "f50fdece10c9dc1d950bbc39a120e88da6"},
    {"G", 1,
     "1c5828434d2e3b3164e4a9be06615f5e485579a68fe57c525e1c3c74787823d8c047e1adf8eb56c3704750d2b8ca5"
     "9"
     "8956faf74a5c1cecbc6694a50250e48da0"},
    {"G", 2,
     "cb248df4c8a098b7a7c60ef91e94f235a6e66e3a7e4c42339b7f78bf11157b3d00dce3bf6149ddc4e99c4fdb094e9"
     "e"
     "939e457b6b7e972be15fdca5db7448bf20"},
    {"G", 255,
     "0b891ac445075def1a6d1ae7d64af842d305027113a2372564a7d218045dcadb716f116213a97d251e228bdb9d898"
     "4"
     "17262081d0306d46a16adbd6e7a2681c7a"},
    {"G", 65535,
     "f3ad8a1084cbbbe965a067016c799e74062b295cee9efdd2c4513cd3def6b016fa2d683efd4442d0c24c1e750152d"
     "d"
     "49620ead5e5ec029fa1170fe43cf142094"},
};

std::string SodiumFromHash(ByteView uniform) {
  std::array<std::uint8_t, 32> p{};
  EXPECT_EQ(crypto_core_ristretto255_from_hash(p.data(), uniform.data()), 0);
  return Hx(p);
}

// v G + r H through libsodium's ristretto255 arithmetic.
std::string SodiumCommit(const ec::Scalar& v, const ec::Scalar& r, const ec::RistrettoPoint& h) {
  const auto vb = v.ToBytes(), rb = r.ToBytes();
  const auto hb = h.Encode().bytes();
  std::array<std::uint8_t, 32> vg{}, rh{}, sum{};
  EXPECT_EQ(crypto_scalarmult_ristretto255_base(vg.data(), vb.data()), 0);
  EXPECT_EQ(crypto_scalarmult_ristretto255(rh.data(), rb.data(), hb.data()), 0);
  EXPECT_EQ(crypto_core_ristretto255_add(sum.data(), vg.data(), rh.data()), 0);
  return Hx(sum);
}

TEST(Pedersen, GeneratorsMatchAnIndependentDerivation) {
  ASSERT_GE(sodium_init(), 0);
  for (const auto& v : kGeneratorVectors) {
    const Bytes uniform = H(v.uniform_hex);
    ASSERT_EQ(uniform.size(), 64u);
    const ec::RistrettoPoint p = v.index < 0
                                     ? PedersenGeneratorH()
                                     : PedersenVectorGenerator(static_cast<std::uint32_t>(v.index));
    EXPECT_EQ(Hx(p.Encode().bytes()), SodiumFromHash(uniform)) << v.msg << v.index;
  }
  EXPECT_TRUE(PedersenGens::Default().H() == PedersenGeneratorH());
  EXPECT_TRUE(PedersenGens::Default().G() == ec::RistrettoPoint::Generator());
}

TEST(Pedersen, GeneratorsFrozen) {
  // Freezes the derivation (the first bytes of the DST or message must never change silently).
  EXPECT_EQ(Hx(PedersenGeneratorH().Encode().bytes()),
            SodiumFromHash(H(kGeneratorVectors[0].uniform_hex)));
  VectorPedersenGens gens(4);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(Hx(gens.G(i).Encode().bytes()),
              SodiumFromHash(H(kGeneratorVectors[i + 1].uniform_hex)));
  }
}

TEST(Pedersen, GeneratorsDistinctAndNotIdentity) {
  VectorPedersenGens gens(64);
  std::set<std::string> seen;
  auto add = [&](const ec::RistrettoPoint& p) {
    EXPECT_FALSE(p.IsIdentity());
    seen.insert(Hx(p.Encode().bytes()));
  };
  add(PedersenGens::Default().G());
  add(PedersenGens::Default().H());
  for (std::size_t i = 0; i < gens.size(); ++i) add(gens.G(i));
  EXPECT_EQ(seen.size(), 66u);
}

TEST(Pedersen, CommitMatchesLibsodiumAndVartime) {
  ASSERT_GE(sodium_init(), 0);
  const PedersenGens& gens = PedersenGens::Default();
  TestRng rng(1);
  for (int i = 0; i < 20; ++i) {
    const ec::Scalar v = i == 0 ? ec::Scalar::FromUint64(7) : rng.Scalar();
    const ec::Scalar r = rng.Scalar();
    const Commitment c = gens.Commit(v, r);
    EXPECT_EQ(Hx(c.Encode().bytes()), SodiumCommit(v, r, gens.H()));
    EXPECT_TRUE(c == gens.CommitVartime(v, r));
  }
}

TEST(Pedersen, Homomorphism) {
  const PedersenGens& gens = PedersenGens::Default();
  TestRng rng(2);
  for (int i = 0; i < 20; ++i) {
    const ec::Scalar v1 = rng.Scalar(), r1 = rng.Scalar(), v2 = rng.Scalar(), r2 = rng.Scalar();
    const ec::Scalar k = rng.Scalar();
    const Commitment c1 = gens.Commit(v1, r1), c2 = gens.Commit(v2, r2);
    EXPECT_TRUE(c1 + c2 == gens.Commit(v1 + v2, r1 + r2));
    EXPECT_TRUE(c1 - c2 == gens.Commit(v1 - v2, r1 - r2));
    EXPECT_TRUE(-c1 == gens.Commit(-v1, -r1));
    EXPECT_TRUE(k * c1 == gens.Commit(k * v1, k * r1));
    Commitment acc = c1;
    acc += c2;
    acc -= c1;
    EXPECT_TRUE(acc == c2);
  }
  EXPECT_TRUE(Commitment() == gens.Commit(ec::Scalar::Zero(), ec::Scalar::Zero()));
}

TEST(Pedersen, OpeningVerifiesAndRejects) {
  const PedersenGens& gens = PedersenGens::Default();
  TestRng rng(3);
  for (int i = 0; i < 10; ++i) {
    const ec::Scalar v = rng.Scalar(), r = rng.Scalar();
    const Commitment c = gens.Commit(v, r);
    EXPECT_TRUE(gens.VerifyOpening(c, v, r).ok());
    EXPECT_EQ(gens.VerifyOpening(c, v + ec::Scalar::One(), r), VerificationFailed());
    EXPECT_EQ(gens.VerifyOpening(c, v, r + ec::Scalar::One()), VerificationFailed());
    EXPECT_EQ(gens.VerifyOpening(c, r, v), VerificationFailed());
    EXPECT_EQ(gens.VerifyOpening(c + gens.Commit(ec::Scalar::One(), ec::Scalar::Zero()), v, r),
              VerificationFailed());
  }
}

TEST(Pedersen, VectorCommitments) {
  VectorPedersenGens gens(16);
  TestRng rng(4);
  for (std::size_t n : {0u, 1u, 5u, 16u}) {
    std::vector<ec::Scalar> a(n), b(n);
    for (auto& x : a) x = rng.Scalar();
    for (auto& x : b) x = rng.Scalar();
    const ec::Scalar r = rng.Scalar(), s = rng.Scalar();
    auto ca = gens.Commit(a, r);
    ASSERT_TRUE(ca.ok());
    auto cv = gens.CommitVartime(a, r);
    ASSERT_TRUE(cv.ok());
    EXPECT_TRUE(*ca == *cv);
    // By hand: sum a_i G_i + r H with the plain constant-time multiplication.
    ec::RistrettoPoint manual = r * gens.H();
    for (std::size_t i = 0; i < n; ++i) manual += a[i] * gens.G(i);
    EXPECT_TRUE(ca->point() == manual);
    EXPECT_TRUE(gens.VerifyOpening(*ca, a, r).ok());
    EXPECT_EQ(gens.VerifyOpening(*ca, a, s), VerificationFailed());
    if (n > 0) {
      std::vector<ec::Scalar> a2 = a;
      a2[n - 1] += ec::Scalar::One();
      EXPECT_EQ(gens.VerifyOpening(*ca, a2, r), VerificationFailed());
      // Homomorphism, element-wise.
      std::vector<ec::Scalar> sum(n);
      for (std::size_t i = 0; i < n; ++i) sum[i] = a[i] + b[i];
      EXPECT_TRUE(*ca + *gens.Commit(b, s) == *gens.Commit(sum, r + s));
    }
  }
  std::vector<ec::Scalar> too_many(17);
  EXPECT_EQ(gens.Commit(too_many, ec::Scalar::One()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(gens.CommitVartime(too_many, ec::Scalar::One()).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(gens.VerifyOpening(Commitment(), too_many, ec::Scalar::One()).code(),
            Code::kInvalidArgument);
}

TEST(Pedersen, StrictDecoding) {
  const PedersenGens& gens = PedersenGens::Default();
  TestRng rng(5);
  const Commitment c = gens.Commit(rng.Scalar(), rng.Scalar());
  const auto enc = c.Encode().bytes();
  auto back = Commitment::Decode(enc);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == c);

  Bytes longer(enc.begin(), enc.end());
  longer.push_back(0);
  EXPECT_EQ(Commitment::Decode(longer).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Commitment::Decode(ByteView(enc).first(31)).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Commitment::Decode({}).status().code(), Code::kInvalidArgument);
  // A non-canonical field element (p itself) and a negative s.
  Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  EXPECT_EQ(Commitment::Decode(p_bytes).status().code(), Code::kInvalidArgument);
  Bytes one = H("0100000000000000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(Commitment::Decode(one).status().code(), Code::kInvalidArgument);
  // Every single bit flip either fails to decode or gives another commitment.
  for (std::size_t bit = 0; bit < 256; ++bit) {
    auto d = Commitment::Decode(test::FlipBit(enc, bit));
    if (d.ok()) {
      EXPECT_FALSE(*d == c) << bit;
    }
  }
}

}  // namespace
}  // namespace veil::zk
