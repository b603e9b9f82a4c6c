// ML-DSA-65 (FIPS 204): the conformance files of tests/data/fips204 through the veil-vectors
// runners, the arithmetic against naive definitions, and soundness: every mutated signature, wrong
// message, context or key is rejected, and decoding is strict.
#include "veil/crypto/mldsa65.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../src/crypto/keccak4x.h"
#include "../../src/crypto/mldsa/ntt.h"
#include "../../src/crypto/mldsa/packing.h"
#include "../../src/crypto/mldsa/params.h"
#include "../../src/crypto/mldsa/reduce.h"
#include "../../src/crypto/mldsa/rounding.h"
#include "../../src/crypto/mldsa/sampling.h"
#include "../../src/crypto/mldsa/simd.h"
#include "mldsa_vectors.h"
#include "test_util.h"
#include "veil/base/encoding.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/random.h"
#include "veil/crypto/testing/mldsa65.h"
#include "wycheproof.h"

namespace veil::crypto {
namespace {

namespace m = mldsa;
using test::B;
using test::DataPath;

Secret<32> FixedSeed(std::uint8_t fill) {
  Secret<32> s;
  for (std::size_t i = 0; i < 32; ++i) s.ExposeMutable()[i] = static_cast<std::uint8_t>(fill + i);
  return s;
}

nlohmann::json Load(const std::string& rel) {
  auto j = vectors::LoadJsonFile(DataPath(rel));
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? *j : nlohmann::json();
}

void ExpectClean(const Result<vectors::Report>& r, int cases) {
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->failed, 0);
  EXPECT_EQ(r->passed, cases);
  for (const auto& f : r->failures) ADD_FAILURE() << f;
}

// ---------------------------------------------------------------------------------------------
// Conformance files

TEST(MlDsa65Vectors, AcvpKeyGen) {
  ExpectClean(
      vectors::RunAcvpMlDsa(Load("fips204/acvp/ML-DSA-keyGen-FIPS204/internalProjection.json")),
      25);
}

TEST(MlDsa65Vectors, AcvpSigGenDeterministicAndHedged) {
  ExpectClean(
      vectors::RunAcvpMlDsa(Load("fips204/acvp/ML-DSA-sigGen-FIPS204/internalProjection.json")),
      20);
}

TEST(MlDsa65Vectors, AcvpSigVer) {
  ExpectClean(
      vectors::RunAcvpMlDsa(Load("fips204/acvp/ML-DSA-sigVer-FIPS204/internalProjection.json")),
      15);
}

TEST(MlDsa65Vectors, WycheproofSignNoSeed) {
  ExpectClean(
      vectors::RunWycheproofMlDsa(Load("fips204/wycheproof/mldsa_65_sign_noseed_test.json")), 78);
}

// The 100-iteration accumulated hash and the exhaustive field-operation hash. Under the
// sanitizers 10 000 iterations take about 40 s, so they are left to `veil-vectors` on a release
// build (RunCctvMlDsaAccumulated's default), and 60 000 000 to a manual run.
TEST(MlDsa65Vectors, CctvAccumulated) {
  auto r =
      vectors::RunCctvMlDsaAccumulated(DataPath("fips204/cctv/accumulated-ML-DSA-65.json"), 100);
  ExpectClean(r, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->algorithm.find("not run: 10000, 60000000"), std::string::npos) << r->algorithm;
}

// The pure ML-DSA-65 component test of the composite-signature draft: the key from its 32-byte
// seed, s over m with an empty context, sWithContext with the file's ctx. The file does not say
// its signatures are deterministic, so they are only verified.
TEST(MlDsa65Vectors, CompositeDraftComponent) {
  const auto file = Load("fips204/composite-ml-dsa/testvectors-mldsa65-ed25519.json");
  const auto b64 = [](const nlohmann::json& j, const char* f) {
    auto r = Base64Decode(j.at(f).get<std::string>());
    EXPECT_TRUE(r.ok()) << f;
    return r.ok() ? *r : Bytes{};
  };
  const Bytes msg = b64(file, "m");
  const Bytes ctx = b64(file, "ctx");
  int found = 0;
  for (const auto& t : file.at("tests")) {
    if (t.at("tcId") != "id-ML-DSA-65") continue;
    ++found;
    const Bytes pk_bytes = b64(t, "pk");
    const Bytes seed = b64(t, "sk");
    const Bytes s = b64(t, "s");
    const Bytes s_ctx = b64(t, "sWithContext");
    ASSERT_EQ(seed.size(), 32u);
    const auto kp = MlDsa65KeyGenFromSeed(Secret<32>::CopyFrom(ByteView(seed).first<32>()));
    EXPECT_EQ(test::Hx(kp.pk.bytes()), test::Hx(pk_bytes));
    auto pk = MlDsa65PublicKey::Decode(pk_bytes);
    ASSERT_TRUE(pk.ok());
    EXPECT_TRUE(MlDsa65Verify(*pk, msg, {}, s).ok());
    EXPECT_TRUE(MlDsa65Verify(*pk, msg, ctx, s_ctx).ok());
    EXPECT_EQ(MlDsa65Verify(*pk, msg, ctx, s).code(), Code::kVerificationFailed);
    EXPECT_EQ(MlDsa65Verify(*pk, msg, {}, s_ctx).code(), Code::kVerificationFailed);
  }
  EXPECT_EQ(found, 1);
}

// ---------------------------------------------------------------------------------------------
// The runners themselves

TEST(MlDsa65Runner, RejectsOtherParameterSetsAndModes) {
  EXPECT_FALSE(vectors::RunWycheproofMlDsa(
                   nlohmann::json::parse(R"({"algorithm":"ML-DSA-44","testGroups":[]})"))
                   .ok());
  EXPECT_FALSE(vectors::RunAcvpMlDsa(nlohmann::json::parse(
                                         R"({"algorithm":"ML-DSA","mode":"keyGen","testGroups":[
                                         {"parameterSet":"ML-DSA-87","tests":[]}]})"))
                   .ok());
  EXPECT_FALSE(vectors::RunAcvpMlDsa(nlohmann::json::parse(
                                         R"({"algorithm":"ML-DSA","mode":"sigGen","testGroups":[
                                         {"parameterSet":"ML-DSA-65","signatureInterface":
                                         "external","preHash":"preHash","tests":[]}]})"))
                   .ok());
  EXPECT_EQ(vectors::RunCctvMlDsaAccumulated("/nonexistent.json").status().code(), Code::kNotFound);
}

// The verify and sign-with-seed schemas, which have no file in tests/data, on cases made here:
// the runner must pass the right verdicts and fail a wrong expectation.
TEST(MlDsa65Runner, WycheproofVerifyAndSeedSchemas) {
  const Secret<32> xi = FixedSeed(3);
  const auto kp = MlDsa65KeyGenFromSeed(xi);
  const Bytes msg = B("message");
  const Bytes ctx = B("ctx");
  const auto sig = MlDsa65Sign(kp.sk, msg, ctx, MlDsaSigning::kDeterministic);
  ASSERT_TRUE(sig.ok());
  Bytes bad = Bytes(sig->begin(), sig->end());
  bad[100] ^= 1;
  const std::string pk_hex = test::Hx(kp.pk.bytes());
  const std::string long_ctx(2 * 256, 'a');
  nlohmann::json verify = {{"algorithm", "ML-DSA-65"},
                           {"schema", "mldsa_verify_schema.json"},
                           {"testGroups",
                            {{{"type", "MlDsaVerify"},
                              {"publicKey", pk_hex},
                              {"tests",
                               {{{"tcId", 1},
                                 {"msg", test::Hx(msg)},
                                 {"ctx", test::Hx(ctx)},
                                 {"sig", test::Hx(*sig)},
                                 {"result", "valid"}},
                                {{"tcId", 2},
                                 {"msg", test::Hx(msg)},
                                 {"ctx", test::Hx(ctx)},
                                 {"sig", test::Hx(bad)},
                                 {"result", "invalid"}},
                                {{"tcId", 3},
                                 {"msg", test::Hx(msg)},
                                 {"ctx", long_ctx},
                                 {"sig", test::Hx(*sig)},
                                 {"result", "invalid"}},
                                {{"tcId", 4},
                                 {"msg", test::Hx(msg)},
                                 {"sig", test::Hx(*sig)},
                                 {"result", "invalid"}}}}}}}};
  ExpectClean(vectors::RunWycheproofMlDsa(verify), 4);

  nlohmann::json sign = {{"algorithm", "ML-DSA-65"},
                         {"schema", "mldsa_sign_seed_schema.json"},
                         {"testGroups",
                          {{{"type", "MlDsaSign"},
                            {"privateSeed", test::Hx(xi.Expose())},
                            {"publicKey", pk_hex},
                            {"tests",
                             {{{"tcId", 1},
                               {"msg", test::Hx(msg)},
                               {"ctx", test::Hx(ctx)},
                               {"sig", test::Hx(*sig)},
                               {"result", "valid"}},
                              {{"tcId", 2},
                               {"msg", test::Hx(msg)},
                               {"ctx", long_ctx},
                               {"sig", ""},
                               {"result", "invalid"}}}}}}}};
  ExpectClean(vectors::RunWycheproofMlDsa(sign), 2);

  // A wrong expectation is a failure, not a pass.
  verify["testGroups"][0]["tests"][0]["result"] = "invalid";
  auto r = vectors::RunWycheproofMlDsa(verify);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic against the definitions

std::int64_t ModQ(std::int64_t a) { return ((a % m::kQ) + m::kQ) % m::kQ; }

// Runs a check with the AVX2 code (when the CPU has it) and with the portable code.
class MlDsa65BothPaths : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!GetParam() && !m::UseAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
    m::SetPortableOnlyForTesting(GetParam());
  }
  void TearDown() override { m::SetPortableOnlyForTesting(false); }
};
INSTANTIATE_TEST_SUITE_P(Paths, MlDsa65BothPaths, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& p) {
                           return p.param ? "Portable" : "Avx2";
                         });

std::int32_t RandomCoeff(std::int32_t bound) {  // uniform in (-bound, bound)
  return static_cast<std::int32_t>(RandomUniform(static_cast<std::uint32_t>(2 * bound - 1))) -
         (bound - 1);
}

TEST_P(MlDsa65BothPaths, NttMultipliesInTheRing) {
  // NTT^-1(NTT(a) o NTT(b)) against schoolbook multiplication mod X^256 + 1.
  m::Poly a;
  m::Poly b;
  for (std::size_t i = 0; i < m::kN; ++i) {
    a.c[i] = RandomCoeff(m::kQ);
    b.c[i] = RandomCoeff(m::kQ);
  }
  std::array<std::int64_t, m::kN> want{};
  for (std::size_t i = 0; i < m::kN; ++i) {
    for (std::size_t j = 0; j < m::kN; ++j) {
      const std::int64_t p = static_cast<std::int64_t>(a.c[i]) * b.c[j] % m::kQ;
      if (i + j < m::kN) {
        want[i + j] = ModQ(want[i + j] + p);
      } else {
        want[i + j - m::kN] = ModQ(want[i + j - m::kN] - p);
      }
    }
  }
  m::PolyNtt(a);
  m::PolyNtt(b);
  for (std::size_t i = 0; i < m::kN; ++i) ASSERT_LT(std::abs(a.c[i]), 9 * m::kQ);
  m::Poly c;
  m::PolyPointwiseMontgomery(c, a, b);
  m::PolyInvNttToMont(c);
  for (std::size_t i = 0; i < m::kN; ++i) {
    ASSERT_LT(std::abs(c.c[i]), m::kQ);
    ASSERT_EQ(ModQ(c.c[i]), want[i]) << i;
  }
}

// The extreme inputs the bounds allow: every coefficient at +-(q - 1).
TEST_P(MlDsa65BothPaths, NttAtTheBounds) {
  for (std::int32_t sign : {1, -1}) {
    m::Poly a;
    a.c.fill(sign * (m::kQ - 1));
    m::PolyInvNttToMont(a);  // the largest sums the inverse transform can meet
    for (std::int32_t x : a.c) ASSERT_LT(std::abs(x), m::kQ);
    a.c.fill(sign * (m::kQ - 1));
    m::PolyNtt(a);
    for (std::int32_t x : a.c) ASSERT_LT(std::abs(x), 9 * m::kQ);
  }
}

// The AVX2 code computes exactly the portable code's values, not merely congruent ones.
TEST(MlDsa65Arithmetic, Avx2MatchesPortableExactly) {
  if (!m::UseAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (int trial = 0; trial < 20; ++trial) {
    m::PolyVecL v;
    m::MatrixA a;
    m::Poly c;
    m::PolyVecK u;
    for (auto& p : v.p) {
      for (auto& x : p.c) x = RandomCoeff(m::kQ);
    }
    for (auto& row : a.a) {
      for (auto& p : row) {
        for (auto& x : p.c) x = static_cast<std::int32_t>(RandomUniform(m::kQ));
      }
    }
    for (auto& x : c.c) x = RandomCoeff(m::kQ);
    for (auto& p : u.p) {
      for (auto& x : p.c) x = RandomCoeff(m::kQ);
    }
    const auto run = [&](bool portable) {
      m::SetPortableOnlyForTesting(portable);
      m::PolyVecL nv = v;
      m::PolyVecL iv = v;
      m::VecNtt(nv);
      m::VecInvNttToMont(iv);
      m::PolyVecK w1;
      m::PolyVecK w2;
      m::MatrixVectorMontgomery(w1, a, nv);
      m::MatrixVectorMinusScalarMontgomery(w2, a, nv, c, u);
      m::Poly pw;
      m::PolyPointwiseMontgomery(pw, c, u.p[0]);
      m::SetPortableOnlyForTesting(false);
      std::vector<std::int32_t> all;
      for (const auto* vec : {&nv, &iv}) {
        for (const auto& p : vec->p) all.insert(all.end(), p.c.begin(), p.c.end());
      }
      for (const auto* vec : {&w1, &w2}) {
        for (const auto& p : vec->p) all.insert(all.end(), p.c.begin(), p.c.end());
      }
      all.insert(all.end(), pw.c.begin(), pw.c.end());
      return all;
    };
    ASSERT_EQ(run(false), run(true));
  }
}

TEST_P(MlDsa65BothPaths, KeyGenSignVerifyAgreeWithVectors) {
  ExpectClean(
      vectors::RunAcvpMlDsa(Load("fips204/acvp/ML-DSA-sigGen-FIPS204/internalProjection.json")),
      20);
  ExpectClean(
      vectors::RunAcvpMlDsa(Load("fips204/acvp/ML-DSA-sigVer-FIPS204/internalProjection.json")),
      15);
  ExpectClean(
      vectors::RunAcvpMlDsa(Load("fips204/acvp/ML-DSA-keyGen-FIPS204/internalProjection.json")),
      25);
}

// Decompose, HighBits, LowBits, MakeHint and UseHint for every r in [0, q), against FIPS 204
// Algorithms 36 to 40 written with division (the CCTV hash covers the same ground once more).
template <std::int32_t kG2>
void CheckRoundingExhaustively() {
  constexpr std::int32_t kM = (m::kQ - 1) / (2 * kG2);
  for (std::int32_t r = 0; r < m::kQ; ++r) {
    std::int32_t r0 = r % (2 * kG2);
    if (r0 > kG2) r0 -= 2 * kG2;
    std::int32_t r1 = 0;
    if (r - r0 == m::kQ - 1) {
      r0 -= 1;
    } else {
      r1 = (r - r0) / (2 * kG2);
    }
    const m::Split d = m::Decompose<kG2>(r);
    if (d.hi != r1 || d.lo != r0) {
      FAIL() << "Decompose(" << r << ") = " << d.hi << ", " << d.lo << "; want " << r1 << ", "
             << r0;
    }
    const std::int32_t up = r0 > 0 ? (r1 + 1) % kM : (r1 - 1 + kM) % kM;
    if (m::UseHint<kG2>(1, r) != up || m::UseHint<kG2>(0, r) != r1) {
      FAIL() << "UseHint(" << r << ")";
    }
  }
}

TEST(MlDsa65Arithmetic, RoundingMatchesDefinitionEverywhere) {
  CheckRoundingExhaustively<(m::kQ - 1) / 32>();
  CheckRoundingExhaustively<(m::kQ - 1) / 88>();
  for (std::int32_t r = 0; r < m::kQ; r += 7) {
    const m::Split p = m::Power2Round(r);
    ASSERT_EQ(p.hi * (1 << m::kD) + p.lo, r);
    ASSERT_TRUE(p.lo > -(1 << (m::kD - 1)) && p.lo <= (1 << (m::kD - 1)));
  }
  // MakeHint is [[HighBits(r) != HighBits(r + z)]].
  for (std::int32_t r = 0; r < m::kQ; r += 997) {
    for (std::int32_t z : {-261888, -5000, -1, 0, 1, 4096, 261888}) {
      const std::int32_t rz = static_cast<std::int32_t>(ModQ(r + z));
      ASSERT_EQ(m::MakeHint(r, rz), m::HighBits(r) != m::HighBits(rz) ? 1 : 0);
    }
  }
}

TEST(MlDsa65Arithmetic, SampleInBallHasTauSignedOnes) {
  for (int trial = 0; trial < 50; ++trial) {
    std::array<std::uint8_t, m::kCTildeBytes> seed;
    RandomBytes(seed);
    m::Poly c;
    m::SampleInBall(c, seed);
    int ones = 0;
    for (std::int32_t x : c.c) {
      ASSERT_TRUE(x == 0 || x == 1 || x == -1);
      ones += x != 0;
    }
    EXPECT_EQ(ones, static_cast<int>(m::kTau));
  }
}

TEST(MlDsa65Arithmetic, ExpandSIsBounded) {
  std::array<std::uint8_t, m::kRhoPrimeBytes> rho_prime;
  RandomBytes(rho_prime);
  m::PolyVecL s1;
  m::PolyVecK s2;
  m::ExpandS(s1, s2, rho_prime);
  int histogram[9] = {};
  for (const auto* v : {&s1.p[0], &s1.p[4], &s2.p[0], &s2.p[5]}) {
    for (std::int32_t x : v->c) {
      ASSERT_TRUE(x >= -m::kEta && x <= m::kEta);
      ++histogram[x + m::kEta];
    }
  }
  for (int h : histogram) EXPECT_GT(h, 50);  // 1024 draws over 9 values: about 114 each
}

TEST(MlDsa65Arithmetic, HintBitPackRoundTrip) {
  for (int ones : {0, 1, 17, static_cast<int>(m::kOmega)}) {
    m::PolyVecK h{};
    for (int n = 0; n < ones; ++n) {
      const std::size_t i = RandomUniform(static_cast<std::uint32_t>(m::kK));
      const std::size_t j = RandomUniform(static_cast<std::uint32_t>(m::kN));
      if (h.p[i].c[j] == 1) {
        --n;
        continue;
      }
      h.p[i].c[j] = 1;
    }
    std::array<std::uint8_t, m::kHintBytes> packed;
    m::HintBitPack(packed, h);
    m::PolyVecK back;
    ASSERT_TRUE(m::HintBitUnpackVartime(back, packed));
    for (std::size_t i = 0; i < m::kK; ++i) EXPECT_EQ(back.p[i].c, h.p[i].c);
  }
}

// ---------------------------------------------------------------------------------------------
// Four-way sampling (ExpandA, ExpandS, ExpandMask on the AVX2 Keccak) against the scalar code

template <std::size_t M>
std::vector<std::int32_t> Flatten(const std::array<m::Poly, M>& polys) {
  std::vector<std::int32_t> all;
  for (const m::Poly& p : polys) all.insert(all.end(), p.c.begin(), p.c.end());
  return all;
}

std::vector<std::int32_t> Flatten(const m::MatrixA& a) {
  std::vector<std::int32_t> all;
  for (const auto& row : a.a) {
    const auto r = Flatten(row);
    all.insert(all.end(), r.begin(), r.end());
  }
  return all;
}

struct Sampled {
  std::vector<std::int32_t> a, s, y;
};

// ExpandA(rho), ExpandS(rho') and ExpandMask(rho'', kappa) on the chosen path.
Sampled SampleAll(bool portable, std::span<const std::uint8_t, m::kSeedBytes> rho,
                  std::span<const std::uint8_t, m::kRhoPrimeBytes> rho_prime, std::uint16_t kappa) {
  m::SetPortableOnlyForTesting(portable);
  m::MatrixA a;
  m::ExpandAVartime(a, rho);
  m::PolyVecL s1;
  m::PolyVecK s2;
  m::ExpandS(s1, s2, rho_prime);
  m::PolyVecL y;
  m::ExpandMask(y, rho_prime, kappa);
  m::SetPortableOnlyForTesting(false);
  Sampled out{Flatten(a), Flatten(s1.p), Flatten(y.p)};
  const auto s2_flat = Flatten(s2.p);
  out.s.insert(out.s.end(), s2_flat.begin(), s2_flat.end());
  return out;
}

TEST(MlDsa65Sampling, Avx2MatchesPortableOnRandomSeeds) {
  if (!m::UseAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (int trial = 0; trial < 100; ++trial) {
    std::array<std::uint8_t, m::kSeedBytes> rho;
    std::array<std::uint8_t, m::kRhoPrimeBytes> rho_prime;
    RandomBytes(rho);
    RandomBytes(rho_prime);
    // The largest kappa the signing loop reaches (its indices end at 2^16 - 1), then random ones.
    const auto kappa = static_cast<std::uint16_t>(trial == 0 ? 0x10000 - m::kL
                                                             : RandomUniform(0x10000 - m::kL + 1));
    const Sampled avx2 = SampleAll(false, rho, rho_prime, kappa);
    const Sampled portable = SampleAll(true, rho, rho_prime, kappa);
    ASSERT_EQ(avx2.a, portable.a) << "ExpandA, trial " << trial;
    ASSERT_EQ(avx2.s, portable.s) << "ExpandS, trial " << trial;
    ASSERT_EQ(avx2.y, portable.y) << "ExpandMask, kappa " << kappa;
  }
}

// RejBoundedPoly reads a third SHAKE256 block about once in 140,000 streams. These rho' (found by
// a search with Python's hashlib) make stream 1 (s1[1], in the first batch of four) need 274 bytes
// and stream 8 (s2[3], in the last batch of three) 278 bytes.
TEST(MlDsa65Sampling, ExpandSWhenAStreamNeedsAThirdBlock) {
  struct Case {
    const char* rho_prime;
    std::uint16_t index;
  };
  for (const Case& c :
       {Case{
            "ae6007bb42a77a9c70af6cecc03a504e2d48e8076ae2112d42e053156ad9673dd7c1d8a9f3ff7bbcbfe031"
            "bd25b581d48808f95db4251c98124e2be50f9d0522",
            1},
        Case{
            "412c9b66e6c208115bdd53a81a3abb8025a42e2f71b77d00502b92e4c29c5b65b14f053d89910b11aaf078"
            "063da91ce1318f77204d152bfaef754d3490797c93",
            8}}) {
    const Bytes seed = test::H(c.rho_prime);
    ASSERT_EQ(seed.size(), m::kRhoPrimeBytes);
    const auto rho_prime = std::span<const std::uint8_t, m::kRhoPrimeBytes>(seed.data(), 64);
    // The premise: the 256th accepted nibble lies beyond the first two blocks.
    Shake256 h;
    h.Absorb(seed);
    const std::array<std::uint8_t, 2> index = {static_cast<std::uint8_t>(c.index), 0};
    h.Absorb(index);
    std::array<std::uint8_t, 3 * Shake256::kBlockSize> stream;
    h.SqueezeBlocks(stream);
    std::size_t accepted = 0;
    std::size_t bytes = 0;
    while (accepted < m::kN) {
      accepted += (stream[bytes] & 0x0f) < 9;
      if (accepted < m::kN) accepted += (stream[bytes] >> 4) < 9;
      ++bytes;
    }
    ASSERT_GT(bytes, 2 * Shake256::kBlockSize);

    m::Poly single;
    m::RejBoundedPoly(single, rho_prime, c.index);
    for (bool portable : {true, false}) {
      if (!portable && !m::UseAvx2()) continue;
      m::SetPortableOnlyForTesting(portable);
      m::PolyVecL s1;
      m::PolyVecK s2;
      m::ExpandS(s1, s2, rho_prime);
      m::SetPortableOnlyForTesting(false);
      const m::Poly& got = c.index < m::kL ? s1.p[c.index] : s2.p[c.index - m::kL];
      EXPECT_EQ(got.c, single.c) << (portable ? "portable" : "AVX2");
      for (std::int32_t x : got.c) ASSERT_TRUE(x >= -m::kEta && x <= m::kEta);
    }
  }
}

// ExpandA's streams never need a sixth block in practice (more than 24 rejections at 1/1024
// each), so the continuation of the four-way driver is checked on its own: stream n asks for n
// blocks beyond the first two, stream 3 is unused, and every stream must see exactly the scalar
// SHAKE128 output of its input.
TEST(MlDsa65Sampling, FourWayDriverContinuesEachStreamOnItsOwn) {
  if (!m::UseAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
#if VEIL_HAVE_AVX2
  constexpr std::size_t kRate = Shake128::kBlockSize;
  std::array<std::array<std::uint8_t, 34>, 4> inputs;
  std::array<const std::uint8_t*, 4> in;
  for (std::size_t n = 0; n < 4; ++n) {
    RandomBytes(inputs[n]);
    in[n] = inputs[n].data();
  }
  std::array<std::vector<std::uint8_t>, 4> seen;
  ShakeX4RejectionSampleAvx2<kRate, 2>(in, inputs[0].size(), 3,
                                       [&](std::size_t n, std::span<const std::uint8_t> bytes) {
                                         seen[n].insert(seen[n].end(), bytes.begin(), bytes.end());
                                         return seen[n].size() >= (2 + n) * kRate;
                                       });
  for (std::size_t n = 0; n < 3; ++n) {
    ASSERT_EQ(seen[n].size(), (2 + n) * kRate) << n;
    Shake128 g;
    g.Absorb(inputs[n]);
    std::vector<std::uint8_t> want(seen[n].size());
    g.Squeeze(want);
    EXPECT_EQ(seen[n], want) << n;
  }
  EXPECT_TRUE(seen[3].empty());
#endif
}

// The signing loop's MaskSampler keeps part of each four-way batch for the next kappa; its output
// must be ExpandMask's for every kappa of a loop, on both paths.
TEST(MlDsa65Sampling, MaskSamplerIsExpandMaskForEachKappa) {
  std::array<std::uint8_t, m::kRhoPrimeBytes> rho_pp;
  RandomBytes(rho_pp);
  for (bool portable : {false, true}) {
    if (!portable && !m::UseAvx2()) continue;
    // From kappa = 0 as Algorithm 7 starts, and across the end of the 16-bit index range.
    for (std::size_t start : {std::size_t{0}, 0x10000 - 13 * m::kL}) {
      m::MaskSampler mask(rho_pp);
      for (std::size_t kappa = start; kappa + m::kL <= 0x10000; kappa += m::kL) {
        if (start == 0 && kappa > 12 * m::kL) break;
        m::SetPortableOnlyForTesting(portable);
        m::PolyVecL got;
        mask.Expand(got, static_cast<std::uint16_t>(kappa));
        m::SetPortableOnlyForTesting(true);
        m::PolyVecL want;
        m::ExpandMask(want, rho_pp, static_cast<std::uint16_t>(kappa));
        m::SetPortableOnlyForTesting(false);
        ASSERT_EQ(Flatten(got.p), Flatten(want.p)) << "kappa " << kappa;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Keys

TEST(MlDsa65Keys, EncodeDecodeRoundTrip) {
  const auto kp = MlDsa65KeyGen();
  const SecretBytes sk = kp.sk.Encode();
  ASSERT_EQ(sk.size(), kMlDsa65SecretKeySize);
  auto sk2 = MlDsa65SecretKey::Decode(sk.Expose());
  ASSERT_TRUE(sk2.ok());
  EXPECT_TRUE(sk2->Encode().ConstantTimeEquals(sk));
  auto pk2 = MlDsa65PublicKey::Decode(kp.pk.bytes());
  ASSERT_TRUE(pk2.ok());
  EXPECT_TRUE(std::equal(pk2->bytes().begin(), pk2->bytes().end(), kp.pk.bytes().begin()));
  // A key decoded from bytes signs exactly as the generated one.
  const auto a = MlDsa65Sign(kp.sk, B("m"), {}, MlDsaSigning::kDeterministic);
  const auto b = MlDsa65Sign(*sk2, B("m"), {}, MlDsaSigning::kDeterministic);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_TRUE(MlDsa65Verify(*pk2, B("m"), {}, *a).ok());
}

TEST(MlDsa65Keys, StrictDecoding) {
  const auto kp = MlDsa65KeyGenFromSeed(FixedSeed(1));
  const SecretBytes sk = kp.sk.Encode();
  Bytes bytes(sk.Expose().begin(), sk.Expose().end());
  EXPECT_EQ(MlDsa65SecretKey::Decode(ByteView(bytes).first(4031)).status().code(),
            Code::kInvalidArgument);
  Bytes longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(MlDsa65SecretKey::Decode(longer).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(MlDsa65PublicKey::Decode(ByteView(kp.pk.bytes()).first(1951)).status().code(),
            Code::kInvalidArgument);
  // A nibble of 9..15 in s1 or s2 encodes a coefficient below -eta: rejected, in every position.
  constexpr std::size_t kS1 = 2 * m::kSeedBytes + m::kTrBytes;
  constexpr std::size_t kT0 = kS1 + (m::kL + m::kK) * m::kPolyEtaBytes;
  for (std::size_t off : {kS1, kS1 + 1000, kT0 - 1}) {
    for (int nibble : {9, 15}) {
      Bytes bad = bytes;
      bad[off] = static_cast<std::uint8_t>((bad[off] & 0xf0) | nibble);
      EXPECT_EQ(MlDsa65SecretKey::Decode(bad).status().code(), Code::kInvalidArgument) << off;
      bad = bytes;
      bad[off] = static_cast<std::uint8_t>((bad[off] & 0x0f) | (nibble << 4));
      EXPECT_EQ(MlDsa65SecretKey::Decode(bad).status().code(), Code::kInvalidArgument) << off;
    }
  }
  // 8 (coefficient -eta) is fine; t0 takes any 13-bit value.
  Bytes edge = bytes;
  edge[kS1] = 0x88;
  edge[kT0] = 0xff;
  EXPECT_TRUE(MlDsa65SecretKey::Decode(edge).ok());
}

// ---------------------------------------------------------------------------------------------
// Signing and soundness

class MlDsa65Sound : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    kp_ = new MlDsa65KeyPair(MlDsa65KeyGenFromSeed(FixedSeed(7)));
    auto s = MlDsa65Sign(kp_->sk, B("soundness"), B("ctx"), MlDsaSigning::kDeterministic);
    ASSERT_TRUE(s.ok());
    sig_ = *s;
  }
  static void TearDownTestSuite() {
    delete kp_;
    kp_ = nullptr;
  }
  static Status Verify(ByteView sig) {
    return MlDsa65Verify(kp_->pk, B("soundness"), B("ctx"), sig);
  }

  static MlDsa65KeyPair* kp_;
  static MlDsa65Signature sig_;
};
MlDsa65KeyPair* MlDsa65Sound::kp_ = nullptr;
MlDsa65Signature MlDsa65Sound::sig_{};

TEST_F(MlDsa65Sound, ValidSignatureVerifies) { EXPECT_TRUE(Verify(sig_).ok()); }

TEST_F(MlDsa65Sound, EveryFlippedBitIsRejected) {
  MlDsa65Signature s = sig_;
  int accepted = 0;
  for (std::size_t i = 0; i < s.size() * 8; ++i) {
    s[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
    const Status st = Verify(s);
    if (st.ok()) ++accepted;
    if (!st.ok() && st.code() != Code::kVerificationFailed) ADD_FAILURE() << st.ToString();
    s[i / 8] ^= static_cast<std::uint8_t>(1u << (i % 8));
  }
  EXPECT_EQ(accepted, 0);
}

TEST_F(MlDsa65Sound, WrongMessageContextOrKeyIsRejected) {
  EXPECT_EQ(MlDsa65Verify(kp_->pk, B("soundnesS"), B("ctx"), sig_).code(),
            Code::kVerificationFailed);
  EXPECT_EQ(MlDsa65Verify(kp_->pk, B("soundness"), B("ctX"), sig_).code(),
            Code::kVerificationFailed);
  EXPECT_EQ(MlDsa65Verify(kp_->pk, B("soundness"), {}, sig_).code(), Code::kVerificationFailed);
  // M' of Verify_internal is not the pure M': domain separation.
  EXPECT_EQ(for_testing::MlDsa65VerifyInternal(kp_->pk, B("soundness"), sig_).code(),
            Code::kVerificationFailed);
  const auto other = MlDsa65KeyGenFromSeed(FixedSeed(8));
  EXPECT_EQ(MlDsa65Verify(other.pk, B("soundness"), B("ctx"), sig_).code(),
            Code::kVerificationFailed);
}

TEST_F(MlDsa65Sound, LengthsAndContextLimit) {
  EXPECT_EQ(Verify(ByteView(sig_).first(3308)).code(), Code::kInvalidArgument);
  Bytes longer(sig_.begin(), sig_.end());
  longer.push_back(0);
  EXPECT_EQ(Verify(longer).code(), Code::kInvalidArgument);
  const Bytes ctx255(255, 'c');
  const Bytes ctx256(256, 'c');
  EXPECT_EQ(MlDsa65Sign(kp_->sk, B("m"), ctx256).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(MlDsa65Verify(kp_->pk, B("m"), ctx256, sig_).code(), Code::kInvalidArgument);
  EXPECT_EQ(for_testing::MlDsa65ComputeMu(kp_->pk, B("m"), ctx256).status().code(),
            Code::kInvalidArgument);
  auto s = MlDsa65Sign(kp_->sk, B("m"), ctx255);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(MlDsa65Verify(kp_->pk, B("m"), ctx255, *s).ok());
}

// Hints: the encoding is y[0..omega) = indices, y[omega + i] = running count (Algorithm 20).
TEST_F(MlDsa65Sound, NonCanonicalHintsAreRejected) {
  constexpr std::size_t kH = m::kCTildeBytes + m::kL * m::kPolyZBytes;
  const auto hints = [&](const MlDsa65Signature& s) { return ByteView(s).subspan(kH); };
  // Find a polynomial with at least two hints (the deterministic signature is fixed).
  const ByteView h = hints(sig_);
  std::size_t poly = m::kK;
  std::size_t start = 0;
  for (std::size_t i = 0, prev = 0; i < m::kK; prev = h[m::kOmega + i], ++i) {
    if (static_cast<std::size_t>(h[m::kOmega + i]) >= prev + 2) {
      poly = i;
      start = prev;
      break;
    }
  }
  ASSERT_LT(poly, m::kK) << "signature has no polynomial with two hints";
  const std::size_t total = h[m::kOmega + m::kK - 1];
  ASSERT_LT(total, m::kOmega);

  MlDsa65Signature s = sig_;
  std::swap(s[kH + start], s[kH + start + 1]);  // indices out of order
  EXPECT_EQ(Verify(s).code(), Code::kVerificationFailed);

  s = sig_;
  s[kH + start + 1] = s[kH + start];  // a repeated index
  EXPECT_EQ(Verify(s).code(), Code::kVerificationFailed);

  s = sig_;
  s[kH + total] = 1;  // non-zero padding after the last index
  EXPECT_EQ(Verify(s).code(), Code::kVerificationFailed);

  s = sig_;
  s[kH + m::kOmega + m::kK - 1] = static_cast<std::uint8_t>(m::kOmega + 1);  // count over omega
  EXPECT_EQ(Verify(s).code(), Code::kVerificationFailed);

  if (poly + 1 < m::kK) {
    s = sig_;
    s[kH + m::kOmega + poly + 1] = static_cast<std::uint8_t>(start);  // a count that decreases
    EXPECT_EQ(Verify(s).code(), Code::kVerificationFailed);
  }
}

TEST_F(MlDsa65Sound, ZOutOfRangeIsRejected) {
  // The first coefficient of z encoded as 0 is z = gamma_1, beyond gamma_1 - beta.
  MlDsa65Signature s = sig_;
  s[m::kCTildeBytes] = 0;
  s[m::kCTildeBytes + 1] = 0;
  s[m::kCTildeBytes + 2] &= 0xf0;
  EXPECT_EQ(Verify(s).code(), Code::kVerificationFailed);
}

TEST_F(MlDsa65Sound, DeterministicRepeatsHedgedDoesNot) {
  const auto a = MlDsa65Sign(kp_->sk, B("soundness"), B("ctx"), MlDsaSigning::kDeterministic);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, sig_);
  const auto h1 = MlDsa65Sign(kp_->sk, B("soundness"), B("ctx"));
  const auto h2 = MlDsa65Sign(kp_->sk, B("soundness"), B("ctx"), MlDsaSigning::kHedged);
  ASSERT_TRUE(h1.ok() && h2.ok());
  EXPECT_NE(*h1, *h2);
  EXPECT_NE(*h1, sig_);
  EXPECT_TRUE(Verify(*h1).ok());
  EXPECT_TRUE(Verify(*h2).ok());
}

TEST_F(MlDsa65Sound, InternalAndExternalMuAgreeWithPure) {
  const auto mu = for_testing::MlDsa65ComputeMu(kp_->pk, B("soundness"), B("ctx"));
  ASSERT_TRUE(mu.ok());
  const Secret<32> zero;
  EXPECT_EQ(for_testing::MlDsa65SignExternalMu(kp_->sk, *mu, zero), sig_);
  Bytes m_prime = {0, 3, 'c', 't', 'x'};
  const Bytes msg = B("soundness");
  m_prime.insert(m_prime.end(), msg.begin(), msg.end());
  EXPECT_EQ(for_testing::MlDsa65SignInternal(kp_->sk, m_prime, zero), sig_);
  EXPECT_TRUE(for_testing::MlDsa65VerifyInternal(kp_->pk, m_prime, sig_).ok());
  EXPECT_TRUE(for_testing::MlDsa65VerifyExternalMu(kp_->pk, *mu, sig_).ok());
  for_testing::MlDsa65Mu wrong = *mu;
  wrong[0] ^= 1;
  EXPECT_EQ(for_testing::MlDsa65VerifyExternalMu(kp_->pk, wrong, sig_).code(),
            Code::kVerificationFailed);
}

TEST(MlDsa65, ManyKeysSignAndVerify) {
  for (int i = 0; i < 20; ++i) {
    const auto kp = MlDsa65KeyGen();
    const Bytes msg = RandomBytes(static_cast<std::size_t>(i) * 37);
    const auto s = MlDsa65Sign(kp.sk, msg);
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(MlDsa65Verify(kp.pk, msg, {}, *s).ok());
  }
}

}  // namespace
}  // namespace veil::crypto
