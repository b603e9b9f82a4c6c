// ML-KEM-768 (FIPS 203): the arithmetic against plain modular reference code (exhaustively where
// the domain is small), NTT products against schoolbook negacyclic multiplication, the samplers
// against line-by-line transcriptions of Algorithms 7 and 8, every published vector file in
// tests/data/fips203/ through the veil-vectors runners, round trips, implicit rejection, strict
// decoding, and mutation checks showing that the runners and comparisons can fail.
#include "veil/crypto/mlkem768.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../../src/crypto/keccak4x.h"
#include "../../src/crypto/mlkem/avx2.h"
#include "../../src/crypto/mlkem/kem.h"
#include "../../src/crypto/mlkem/ntt.h"
#include "../../src/crypto/mlkem/packing.h"
#include "../../src/crypto/mlkem/params.h"
#include "../../src/crypto/mlkem/poly.h"
#include "../../src/crypto/mlkem/reduce.h"
#include "../../src/crypto/mlkem/sampling.h"
#include "../../src/crypto/mlkem/simd.h"
#include "mlkem_vectors.h"
#include "support/scratch_dir.h"
#include "test_util.h"
#include "veil/crypto/keccak.h"
#include "veil/crypto/testing/mlkem768.h"
#include "wycheproof.h"

namespace veil::crypto {
namespace {

using mlkem::kN;
using mlkem::kQ;
using mlkem::Poly;

constexpr std::int64_t kQ64 = kQ;

std::int64_t ModQ(std::int64_t x) { return ((x % kQ64) + kQ64) % kQ64; }

std::int64_t PowModQ(std::int64_t b, std::int64_t e) {
  std::int64_t r = 1;
  for (std::int64_t i = 0; i < e; ++i) r = r * b % kQ64;
  return r;
}

unsigned BitRev7(unsigned i) {
  unsigned r = 0;
  for (unsigned b = 0; b < 7; ++b) r |= ((i >> b) & 1u) << (6 - b);
  return r;
}

Poly RandomPoly(std::mt19937_64& rng, std::int16_t lo, std::int16_t hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  Poly p;
  for (auto& x : p.c) x = static_cast<std::int16_t>(dist(rng));
  return p;
}

template <std::size_t N>
Secret<N> SecretOf(std::uint8_t seed) {
  Secret<N> s;
  for (std::size_t i = 0; i < N; ++i)
    s.ExposeMutable()[i] = static_cast<std::uint8_t>(seed + 7 * i);
  return s;
}

Bytes ToBytes(ByteView v) { return Bytes(v.begin(), v.end()); }

// ---------------------------------------------------------------------------------------------
// Modular arithmetic

TEST(MlKemReduce, BarrettIsCentredRepresentativeForEveryInt16) {
  for (int a = -32768; a <= 32767; ++a) {
    const std::int16_t r = mlkem::BarrettReduce(static_cast<std::int16_t>(a));
    ASSERT_EQ(ModQ(r), ModQ(a)) << a;
    ASSERT_LE(r, (kQ - 1) / 2) << a;
    ASSERT_GE(r, -(kQ - 1) / 2) << a;
  }
}

TEST(MlKemReduce, MontgomeryReduceOnEdgesAndRandomInputs) {
  const std::int32_t bound = kQ * (1 << 15) - 1;  // the domain is |a| < q * 2^15
  std::vector<std::int32_t> inputs = {0, 1, -1, bound, -bound, bound - 1, -bound + 1, kQ, -kQ};
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::int32_t> dist(-bound, bound);
  for (int i = 0; i < 200000; ++i) inputs.push_back(dist(rng));
  for (const std::int32_t a : inputs) {
    const std::int16_t r = mlkem::MontgomeryReduce(a);
    ASSERT_EQ(ModQ(static_cast<std::int64_t>(r) * 65536), ModQ(a)) << a;
    ASSERT_LT(std::abs(r), kQ) << a;
  }
}

TEST(MlKemReduce, PrecomputedMultiplicationMatchesFqMulForEveryInt16) {
  for (const std::int16_t zeta : {mlkem::kZetas[1], mlkem::kZetas[77], mlkem::kZetas[127],
                                  std::int16_t{1441}, std::int16_t{-1664}, std::int16_t{1664}}) {
    const std::int16_t zeta_qinv = mlkem::MulLo(zeta, mlkem::kQInv);
    for (int b = -32768; b <= 32767; ++b) {
      const auto b16 = static_cast<std::int16_t>(b);
      const std::int16_t r = mlkem::FqMulPrecomputed(b16, zeta, zeta_qinv);
      ASSERT_EQ(ModQ(static_cast<std::int64_t>(r) * 65536), ModQ(std::int64_t{b} * zeta)) << b;
      ASSERT_LT(std::abs(r), kQ) << b;
    }
  }
}

TEST(MlKemNtt, TwiddleTablesArePowersOfSeventeen) {
  for (unsigned i = 0; i < 128; ++i) {
    EXPECT_EQ(ModQ(mlkem::kZetas[i]), PowModQ(17, BitRev7(i)) * 65536 % kQ64) << i;
    EXPECT_EQ(ModQ(mlkem::kGammas[i]), PowModQ(17, 2 * BitRev7(i) + 1) * 65536 % kQ64) << i;
  }
}

// FIPS 203 Algorithm 9, literally, with exact arithmetic mod q.
std::array<std::int64_t, 256> SpecNtt(const Poly& f) {
  std::array<std::int64_t, 256> a;
  for (std::size_t i = 0; i < kN; ++i) a[i] = ModQ(f.c[i]);
  unsigned i = 1;
  for (std::size_t len = 128; len >= 2; len /= 2) {
    for (std::size_t start = 0; start < 256; start += 2 * len) {
      const std::int64_t zeta = PowModQ(17, BitRev7(i++));
      for (std::size_t j = start; j < start + len; ++j) {
        const std::int64_t t = zeta * a[j + len] % kQ64;
        a[j + len] = ModQ(a[j] - t);
        a[j] = ModQ(a[j] + t);
      }
    }
  }
  return a;
}

TEST(MlKemNtt, MatchesSpecificationOnRandomInputs) {
  std::mt19937_64 rng(2);
  for (int iter = 0; iter < 200; ++iter) {
    const Poly f = RandomPoly(rng, -(kQ - 1), kQ - 1);
    Poly g = f;
    mlkem::Ntt(g);
    const auto want = SpecNtt(f);
    for (std::size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(ModQ(g.c[i]), want[i]) << i;
      ASSERT_LT(std::abs(g.c[i]), 8 * kQ) << i;
    }
  }
}

TEST(MlKemNtt, InverseUndoesForwardTimesR) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 200; ++iter) {
    const Poly f = RandomPoly(rng, -(kQ - 1), kQ - 1);
    Poly g = f;
    mlkem::Ntt(g);
    mlkem::PolyReduce(g);
    mlkem::InvNttToMont(g);
    for (std::size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(ModQ(g.c[i]), ModQ(std::int64_t{f.c[i]} * 65536)) << i;
      ASSERT_LT(std::abs(g.c[i]), kQ);
    }
  }
}

// f * g in Z_q[X]/(X^256 + 1), schoolbook.
std::array<std::int64_t, 256> NegacyclicProduct(const Poly& f, const Poly& g) {
  std::array<std::int64_t, 256> h{};
  for (std::size_t i = 0; i < kN; ++i) {
    for (std::size_t j = 0; j < kN; ++j) {
      const std::int64_t p = std::int64_t{f.c[i]} * g.c[j];
      if (i + j < kN) {
        h[i + j] += p;
      } else {
        h[i + j - kN] -= p;
      }
    }
  }
  for (auto& x : h) x = ModQ(x);
  return h;
}

TEST(MlKemNtt, MultiplicationInTqMatchesSchoolbookProduct) {
  std::mt19937_64 rng(4);
  for (int iter = 0; iter < 50; ++iter) {
    // Summing three products exercises the lazy accumulation of BaseMulAccumulate.
    std::array<Poly, 3> f;
    std::array<Poly, 3> g;
    std::array<Poly, 3> f_hat;
    std::array<Poly, 3> g_hat;
    std::array<mlkem::PolyMulCache, 3> cache;
    std::array<std::int64_t, 256> want{};
    for (std::size_t k = 0; k < 3; ++k) {
      f[k] = RandomPoly(rng, 0, kQ - 1);
      g[k] = RandomPoly(rng, -2, 2);
      const auto p = NegacyclicProduct(f[k], g[k]);
      for (std::size_t i = 0; i < kN; ++i) want[i] = ModQ(want[i] + p[i]);
      f_hat[k] = f[k];
      mlkem::Ntt(f_hat[k]);
      mlkem::PolyReduce(f_hat[k]);
      g_hat[k] = g[k];
      mlkem::Ntt(g_hat[k]);
      mlkem::PolyReduce(g_hat[k]);
      mlkem::PolyMulCacheCompute(cache[k], g_hat[k]);
    }
    Poly h;
    mlkem::BaseMulAccumulate(h, f_hat.data(), cache.data(), 3);
    mlkem::InvNttToMont(h);
    for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(ModQ(h.c[i]), want[i]) << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Encodings

template <unsigned kD>
void CheckCompressExhaustively() {
  for (std::int64_t x = 0; x < kQ64; ++x) {
    // round(2^d x / q) mod 2^d with exact integers: floor((2^(d+1) x + q) / (2q)).
    const std::int64_t want = (((x << (kD + 1)) + kQ64) / (2 * kQ64)) % (1 << kD);
    const std::uint16_t got = mlkem::Compress<kD>(static_cast<std::uint16_t>(x));
    ASSERT_EQ(got, want) << "d=" << kD << " x=" << x;
    // FIPS 203 sec. 4.2.1: |Decompress(Compress(x)) - x| mod+- q <= round(q / 2^(d+1)).
    const std::int64_t back = mlkem::Decompress<kD>(got);
    std::int64_t err = ModQ(back - x);
    if (err > kQ64 / 2) err -= kQ64;
    const std::int64_t bound = (kQ64 + (1 << kD)) / (1 << (kD + 1));
    ASSERT_LE(std::abs(err), bound) << "d=" << kD << " x=" << x;
  }
  for (std::int64_t y = 0; y < (1 << kD); ++y) {
    // round(q y / 2^d), ties up: floor((2 q y + 2^d) / 2^(d+1)).
    const std::int64_t want = (2 * kQ64 * y + (1 << kD)) >> (kD + 1);
    ASSERT_EQ(mlkem::Decompress<kD>(static_cast<std::uint16_t>(y)), want) << "d=" << kD;
  }
}

TEST(MlKemPacking, CompressAndDecompressAreExactForEveryInput) {
  CheckCompressExhaustively<1>();
  CheckCompressExhaustively<4>();
  CheckCompressExhaustively<10>();
  CheckCompressExhaustively<11>();
}

template <unsigned kD>
void CheckByteEncodeRoundTrip(std::mt19937_64& rng) {
  std::array<std::uint16_t, kN> f;
  for (auto& x : f) x = static_cast<std::uint16_t>(rng() % (1u << kD));
  std::array<std::uint8_t, 32 * kD> bytes;
  mlkem::ByteEncode<kD>(bytes, f);
  // Bit i*d + j of the output is bit j of f[i] (Algorithm 5, little-endian BitsToBytes).
  for (std::size_t i = 0; i < kN; ++i) {
    for (unsigned j = 0; j < kD; ++j) {
      const std::size_t bit = i * kD + j;
      ASSERT_EQ((bytes[bit / 8] >> (bit % 8)) & 1, (f[i] >> j) & 1);
    }
  }
  std::array<std::uint16_t, kN> back;
  mlkem::ByteDecode<kD>(back, bytes);
  EXPECT_EQ(back, f);
}

TEST(MlKemPacking, ByteEncodeRoundTripsAndUsesTheStandardBitOrder) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; ++i) {
    CheckByteEncodeRoundTrip<1>(rng);
    CheckByteEncodeRoundTrip<4>(rng);
    CheckByteEncodeRoundTrip<10>(rng);
    CheckByteEncodeRoundTrip<12>(rng);
  }
}

TEST(MlKemPacking, PolyBytesReduceAndModulusCheck) {
  std::array<std::uint16_t, kN> f{};
  std::array<std::uint8_t, mlkem::kPolyBytes> bytes;
  for (const std::uint16_t bad : {std::uint16_t{3329}, std::uint16_t{3330}, std::uint16_t{4095}}) {
    for (const std::size_t pos : {std::size_t{0}, std::size_t{1}, std::size_t{128}, kN - 1}) {
      f.fill(kQ - 1);
      f[pos] = bad;
      mlkem::ByteEncode<12>(bytes, f);
      EXPECT_FALSE(mlkem::PolyBytesAreCanonical(bytes)) << bad << " at " << pos;
      Poly p;
      mlkem::PolyFromBytes(p, bytes);  // ByteDecode_12 reduces mod q
      EXPECT_EQ(p.c[pos], bad - kQ);
    }
  }
  f.fill(kQ - 1);
  mlkem::ByteEncode<12>(bytes, f);
  EXPECT_TRUE(mlkem::PolyBytesAreCanonical(bytes));
}

TEST(MlKemPacking, MessageEncodingRoundTrips) {
  std::mt19937_64 rng(6);
  for (int iter = 0; iter < 100; ++iter) {
    std::array<std::uint8_t, 32> m;
    for (auto& b : m) b = static_cast<std::uint8_t>(rng());
    Poly p;
    mlkem::PolyFromMessage(p, m);
    // Noise below q/4 in either direction must not change the decoded message.
    std::uniform_int_distribution<int> noise(-(kQ / 4 - 1), kQ / 4 - 1);
    for (auto& x : p.c) x = mlkem::BarrettReduce(static_cast<std::int16_t>(x + noise(rng)));
    std::array<std::uint8_t, 32> back;
    mlkem::PolyToMessage(back, p);
    ASSERT_EQ(back, m);
  }
}

// ---------------------------------------------------------------------------------------------
// Sampling

// Algorithm 7, line by line: three XOF bytes at a time.
Poly SpecSampleNtt(std::span<const std::uint8_t, 32> rho, std::uint8_t j, std::uint8_t i) {
  Shake128 xof;
  xof.Absorb(rho);
  const std::array<std::uint8_t, 2> ji = {j, i};
  xof.Absorb(ji);
  Poly a;
  std::size_t count = 0;
  while (count < kN) {
    std::array<std::uint8_t, 3> c;
    xof.Squeeze(c);
    const int d1 = c[0] + 256 * (c[1] % 16);
    const int d2 = c[1] / 16 + 16 * c[2];
    if (d1 < kQ) a.c[count++] = static_cast<std::int16_t>(d1);
    if (d2 < kQ && count < kN) a.c[count++] = static_cast<std::int16_t>(d2);
  }
  return a;
}

TEST(MlKemSampling, SampleNttMatchesAlgorithm7) {
  std::array<std::uint8_t, 32> rho;
  for (int seed = 0; seed < 64; ++seed) {
    for (std::size_t k = 0; k < rho.size(); ++k)
      rho[k] = static_cast<std::uint8_t>(static_cast<std::size_t>(seed) * 31 + k);
    const auto j = static_cast<std::uint8_t>(seed % 3);
    const auto i = static_cast<std::uint8_t>(seed / 3 % 3);
    Poly got;
    mlkem::SampleNtt(got, rho, j, i);
    ASSERT_EQ(got.c, SpecSampleNtt(rho, j, i).c) << seed;
  }
}

TEST(MlKemSampling, SampleNttNeedingMoreThanThreeBlocks) {
  // Find a seed whose first 504 XOF bytes give fewer than 256 accepted values, so that the
  // one-block refill path runs, and check it against the specification too.
  std::array<std::uint8_t, 32> rho{};
  int found = 0;
  for (int seed = 0; seed < 20000 && found < 3; ++seed) {
    rho[0] = static_cast<std::uint8_t>(seed);
    rho[1] = static_cast<std::uint8_t>(seed >> 8);
    Shake128 xof;
    xof.Absorb(rho);
    const std::array<std::uint8_t, 2> ji = {0, 0};
    xof.Absorb(ji);
    std::array<std::uint8_t, 504> buf;
    xof.Squeeze(buf);
    int accepted = 0;
    for (std::size_t p = 0; p < buf.size(); p += 3) {
      accepted += (buf[p] | ((buf[p + 1] & 15) << 8)) < kQ;
      accepted += ((buf[p + 1] >> 4) | (buf[p + 2] << 4)) < kQ;
    }
    if (accepted >= 256) continue;
    ++found;
    Poly got;
    mlkem::SampleNtt(got, rho, 0, 0);
    ASSERT_EQ(got.c, SpecSampleNtt(rho, 0, 0).c) << seed;
  }
  EXPECT_GT(found, 0);
}

TEST(MlKemSampling, Cbd2MatchesAlgorithm8) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 100; ++iter) {
    std::array<std::uint8_t, 128> b;
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    Poly f;
    mlkem::SamplePolyCbd2(f, b);
    for (std::size_t i = 0; i < kN; ++i) {
      auto bit = [&](std::size_t k) { return (b[k / 8] >> (k % 8)) & 1; };
      const int x = bit(4 * i) + bit(4 * i + 1);
      const int y = bit(4 * i + 2) + bit(4 * i + 3);
      ASSERT_EQ(f.c[i], x - y) << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The AVX2 code against the portable code (simd.h): the same values on random inputs.

// True when this CPU runs the AVX2 path; the tests below skip otherwise.
bool HaveAvx2() {
  mlkem::SetPortableOnlyForTesting(false);
  return mlkem::UseAvx2();
}

TEST(MlKemAvx2, KeccakX4MatchesScalarPermutation) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(8);
  for (int iter = 0; iter < 50; ++iter) {
    KeccakX4State x4;
    std::array<KeccakState, 4> ref;
    for (std::size_t w = 0; w < 25; ++w) {
      for (std::size_t n = 0; n < 4; ++n) ref[n][w] = x4.s[w][n] = rng();
    }
    KeccakF1600X4Avx2(x4);
    for (auto& r : ref) KeccakF1600(r);
    for (std::size_t w = 0; w < 25; ++w) {
      for (std::size_t n = 0; n < 4; ++n) ASSERT_EQ(x4.s[w][n], ref[n][w]) << w << " " << n;
    }
  }
}

TEST(MlKemAvx2, ShakeX4MatchesScalarShake) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (const std::size_t rate : {Shake128::kBlockSize, Shake256::kBlockSize}) {
    for (const std::size_t len : {std::size_t{0}, std::size_t{33}, std::size_t{34}, rate - 1}) {
      std::array<Bytes, 4> inputs;
      std::array<const std::uint8_t*, 4> in;
      for (std::size_t n = 0; n < 4; ++n) {
        inputs[n].resize(len + 1);
        for (std::size_t i = 0; i < len; ++i) inputs[n][i] = static_cast<std::uint8_t>(i * 3 + n);
        in[n] = inputs[n].data();
      }
      KeccakX4State state;
      ShakeX4AbsorbOnceAvx2(state, rate, in, len);
      std::array<Bytes, 4> got;
      for (auto& g : got) g.resize(3 * rate);
      for (std::size_t block = 0; block < 3; ++block) {
        std::array<std::uint8_t*, 4> out;
        for (std::size_t n = 0; n < 4; ++n) out[n] = got[n].data() + block * rate;
        ShakeX4SqueezeBlockAvx2(state, rate, out, rate);
      }
      for (std::size_t n = 0; n < 4; ++n) {
        const ByteView msg(inputs[n].data(), len);
        const Bytes want = rate == Shake128::kBlockSize ? Shake128::Hash(msg, 3 * rate)
                                                        : Shake256::Hash(msg, 3 * rate);
        ASSERT_EQ(got[n], want) << "rate " << rate << " len " << len << " instance " << n;
      }
    }
  }
}

TEST(MlKemAvx2, NttInverseAndBaseMultiplicationMatchPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(9);
  for (int iter = 0; iter < 300; ++iter) {
    const Poly f = RandomPoly(rng, -(kQ - 1), kQ - 1);
    Poly a = f;
    Poly b = f;
    mlkem::Ntt(a);  // AVX2
    mlkem::NttPortable(b);
    ASSERT_EQ(a.c, b.c);
    mlkem::PolyReduce(a);
    b = a;
    mlkem::InvNttToMont(a);
    mlkem::InvNttToMontPortable(b);
    ASSERT_EQ(a.c, b.c);
    std::array<Poly, 3> lhs;
    std::array<mlkem::PolyMulCache, 3> cache;
    for (std::size_t k = 0; k < 3; ++k) {
      lhs[k] = RandomPoly(rng, 0, kQ - 1);
      mlkem::PolyMulCacheCompute(cache[k], RandomPoly(rng, -(kQ / 2), kQ / 2));
    }
    mlkem::BaseMulAccumulate(a, lhs.data(), cache.data(), 3);
    mlkem::BaseMulAccumulatePortable(b, lhs.data(), cache.data(), 3);
    ASSERT_EQ(a.c, b.c);
  }
}

#if VEIL_MLKEM_HAVE_AVX2
// Every hand-vectorised routine of avx2.h against its portable twin (the same function with the
// portable path forced), on random inputs over the whole domain the routine accepts and on its
// extreme values. Where the portable code wraps in 16 bits (the NTT butterflies, additions) the
// domain is every int16.

// Runs `body` with the portable code forced.
template <class F>
void Portably(F body) {
  mlkem::SetPortableOnlyForTesting(true);
  body();
  mlkem::SetPortableOnlyForTesting(false);
}

Poly ConstantPoly(std::int16_t x) {
  Poly p;
  p.c.fill(x);
  return p;
}

// Random polynomials in [lo, hi] followed by the extreme ones: constant lo, constant hi,
// alternating lo/hi, and 0.
std::vector<Poly> PolysIn(std::mt19937_64& rng, std::int16_t lo, std::int16_t hi, int count) {
  std::vector<Poly> out;
  for (int i = 0; i < count; ++i) out.push_back(RandomPoly(rng, lo, hi));
  out.push_back(ConstantPoly(lo));
  out.push_back(ConstantPoly(hi));
  Poly alternating;
  for (std::size_t i = 0; i < kN; ++i) alternating.c[i] = i % 2 == 0 ? lo : hi;
  out.push_back(alternating);
  out.push_back(ConstantPoly(0));
  return out;
}

template <std::size_t N>
std::vector<std::array<std::uint8_t, N>> ByteStrings(std::mt19937_64& rng, int count) {
  std::vector<std::array<std::uint8_t, N>> out(static_cast<std::size_t>(count) + 2);
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    for (auto& b : out[i]) b = static_cast<std::uint8_t>(rng());
  }
  out[out.size() - 2].fill(0x00);
  out[out.size() - 1].fill(0xFF);
  return out;
}

constexpr std::int16_t kInt16Min = -32768;
constexpr std::int16_t kInt16Max = 32767;

TEST(MlKemAvx2, NttAndInverseMatchPortableOnEveryInt16) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(11);
  auto inputs = PolysIn(rng, kInt16Min, kInt16Max, 500);
  const auto in_range = PolysIn(rng, -(kQ - 1), kQ - 1, 500);
  inputs.insert(inputs.end(), in_range.begin(), in_range.end());
  for (const Poly& f : inputs) {
    Poly a = f;
    Poly b = f;
    mlkem::avx2::Ntt(a);
    mlkem::NttPortable(b);
    ASSERT_EQ(a.c, b.c);
    a = f;
    b = f;
    mlkem::avx2::InvNttToMont(a);
    mlkem::InvNttToMontPortable(b);
    ASSERT_EQ(a.c, b.c);
  }
}

TEST(MlKemAvx2, BaseMultiplicationAndCacheMatchPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(12);
  // The cache of any int16 polynomial.
  for (const Poly& g : PolysIn(rng, kInt16Min, kInt16Max, 300)) {
    mlkem::PolyMulCache want;
    Portably([&] { mlkem::PolyMulCacheCompute(want, g); });
    mlkem::PolyMulCache got;
    mlkem::avx2::PolyMulCacheCompute(got, g);
    ASSERT_EQ(got.g0, want.g0);
    ASSERT_EQ(got.g1, want.g1);
  }
  // Products within the documented ranges (|f| < q, |g| <= q/2), one to four terms.
  const auto lefts = PolysIn(rng, -(kQ - 1), kQ - 1, 200);
  const auto rights = PolysIn(rng, -(kQ / 2), kQ / 2, 200);
  for (std::size_t iter = 0; iter < lefts.size(); ++iter) {
    const std::size_t count = 1 + iter % 4;
    std::array<Poly, 4> f;
    std::array<mlkem::PolyMulCache, 4> cache;
    for (std::size_t k = 0; k < count; ++k) {
      f[k] = lefts[(iter + k) % lefts.size()];
      mlkem::PolyMulCacheCompute(cache[k], rights[(iter + 3 * k) % rights.size()]);
    }
    Poly want;
    Poly got;
    mlkem::BaseMulAccumulatePortable(want, f.data(), cache.data(), count);
    mlkem::avx2::BaseMulAccumulate(got, f.data(), cache.data(), count);
    ASSERT_EQ(got.c, want.c) << iter;
  }
}

TEST(MlKemAvx2, CoefficientwiseOperationsMatchPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(13);
  const auto inputs = PolysIn(rng, kInt16Min, kInt16Max, 300);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Poly& a = inputs[i];
    const Poly& b = inputs[(7 * i + 3) % inputs.size()];
    Poly want;
    Poly got;
    Portably([&] { mlkem::PolyAdd(want, a, b); });
    mlkem::avx2::PolyAdd(got, a, b);
    ASSERT_EQ(got.c, want.c);
    Portably([&] { mlkem::PolySub(want, a, b); });
    mlkem::avx2::PolySub(got, a, b);
    ASSERT_EQ(got.c, want.c);
    want = a;
    got = a;
    Portably([&] { mlkem::PolyReduce(want); });
    mlkem::avx2::PolyReduce(got);
    ASSERT_EQ(got.c, want.c);
    want = a;
    got = a;
    Portably([&] { mlkem::PolyToMont(want); });
    mlkem::avx2::PolyToMont(got);
    ASSERT_EQ(got.c, want.c);
  }
}

// Every value in (-q, q), spread over polynomials, then random ones and the extremes.
std::vector<Poly> CentredInputs(std::mt19937_64& rng) {
  std::vector<Poly> out;
  Poly p{};
  std::size_t n = 0;
  for (int x = -(kQ - 1); x <= kQ - 1; ++x) {
    p.c[n++] = static_cast<std::int16_t>(x);
    if (n == kN) {
      out.push_back(p);
      n = 0;
    }
  }
  out.push_back(p);
  const auto more = PolysIn(rng, -(kQ - 1), kQ - 1, 200);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

TEST(MlKemAvx2, EncodingsMatchPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(14);
  for (const Poly& a : CentredInputs(rng)) {
    std::array<std::uint8_t, mlkem::kPolyBytes> b12_want;
    std::array<std::uint8_t, mlkem::kPolyBytes> b12_got;
    Portably([&] { mlkem::PolyToBytes(b12_want, a); });
    mlkem::avx2::PolyToBytes(b12_got, a);
    ASSERT_EQ(b12_got, b12_want);
    std::array<std::uint8_t, 320> b10_want;
    std::array<std::uint8_t, 320> b10_got;
    Portably([&] { mlkem::PolyCompress<10>(b10_want, a); });
    mlkem::avx2::PolyCompress10(b10_got, a);
    ASSERT_EQ(b10_got, b10_want);
    std::array<std::uint8_t, 128> b4_want;
    std::array<std::uint8_t, 128> b4_got;
    Portably([&] { mlkem::PolyCompress<4>(b4_want, a); });
    mlkem::avx2::PolyCompress4(b4_got, a);
    ASSERT_EQ(b4_got, b4_want);
    std::array<std::uint8_t, 32> m_want;
    std::array<std::uint8_t, 32> m_got;
    Portably([&] { mlkem::PolyToMessage(m_want, a); });
    mlkem::avx2::PolyToMessage(m_got, a);
    ASSERT_EQ(m_got, m_want);
  }
  // Decoders on arbitrary bytes (12-bit values up to 4095, every 10- and 4-bit value).
  for (const auto& bytes : ByteStrings<mlkem::kPolyBytes>(rng, 300)) {
    Poly want;
    Poly got;
    Portably([&] { mlkem::PolyFromBytes(want, bytes); });
    mlkem::avx2::PolyFromBytes(got, bytes);
    ASSERT_EQ(got.c, want.c);
    bool canonical = false;
    Portably([&] { canonical = mlkem::PolyBytesAreCanonical(bytes); });
    ASSERT_EQ(mlkem::avx2::PolyBytesAreCanonical(bytes), canonical);
    Portably([&] { mlkem::PolyDecompress<10>(want, std::span(bytes).first<320>()); });
    mlkem::avx2::PolyDecompress10(got, std::span(bytes).first<320>());
    ASSERT_EQ(got.c, want.c);
    Portably([&] { mlkem::PolyDecompress<4>(want, std::span(bytes).first<128>()); });
    mlkem::avx2::PolyDecompress4(got, std::span(bytes).first<128>());
    ASSERT_EQ(got.c, want.c);
    Portably([&] { mlkem::PolyFromMessage(want, std::span(bytes).first<32>()); });
    mlkem::avx2::PolyFromMessage(got, std::span(bytes).first<32>());
    ASSERT_EQ(got.c, want.c);
  }
  // The modulus check flags a single value >= q at every position, and accepts q - 1 everywhere.
  std::array<std::uint16_t, kN> f;
  std::array<std::uint8_t, mlkem::kPolyBytes> bytes;
  for (std::size_t pos = 0; pos < kN; ++pos) {
    f.fill(kQ - 1);
    f[pos] = kQ;
    mlkem::ByteEncode<12>(bytes, f);
    ASSERT_FALSE(mlkem::avx2::PolyBytesAreCanonical(bytes)) << pos;
  }
  f.fill(kQ - 1);
  mlkem::ByteEncode<12>(bytes, f);
  EXPECT_TRUE(mlkem::avx2::PolyBytesAreCanonical(bytes));
}

TEST(MlKemAvx2, Cbd2AndRejectionSamplingMatchPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(15);
  for (const auto& bytes : ByteStrings<128>(rng, 300)) {
    Poly want;
    Poly got;
    Portably([&] { mlkem::SamplePolyCbd2(want, bytes); });
    mlkem::avx2::SamplePolyCbd2(got, bytes);
    ASSERT_EQ(got.c, want.c);
  }
  // Buffers of every length the sampler sees and others, random or biased (each byte below 0x0D
  // or above 0xF0, so that most or few candidates pass), starting from every fill level.
  for (int iter = 0; iter < 3000; ++iter) {
    const std::size_t len = 3 * (static_cast<std::size_t>(iter) % 3 == 0 ? 56 : rng() % 200);
    std::vector<std::uint8_t> buf(len);
    const int bias = iter % 5;
    for (auto& b : buf) {
      const auto r = static_cast<std::uint8_t>(rng());
      b = bias == 1 ? static_cast<std::uint8_t>(r % 0x0D) : bias == 2 ? (r | 0xF0) : r;
    }
    const std::size_t ctr = iter % 7 == 0 ? 0 : rng() % (kN + 1);
    Poly want = RandomPoly(rng, 0, kQ - 1);
    Poly got = want;
    const std::size_t want_ctr = mlkem::RejectionSamplePortable(want, ctr, buf);
    const std::size_t got_ctr = mlkem::avx2::RejectionSample(got, ctr, buf);
    ASSERT_EQ(got_ctr, want_ctr) << iter;
    // Both leave a[ctr_out..] unspecified; the accepted prefix must agree.
    for (std::size_t i = 0; i < got_ctr; ++i) ASSERT_EQ(got.c[i], want.c[i]) << iter << " " << i;
  }
}

TEST(MlKemAvx2, SampleManyWithExtraShakeMatchesOneByOne) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(16);
  std::array<std::uint8_t, 32> rho;
  std::array<std::uint8_t, 32> s;
  for (int iter = 0; iter < 120; ++iter) {
    for (auto& x : rho) x = static_cast<std::uint8_t>(rng());
    for (auto& x : s) x = static_cast<std::uint8_t>(rng());
    const std::size_t matrix_count = static_cast<std::size_t>(iter) % 10;
    const std::size_t noise_count = static_cast<std::size_t>(iter / 10) % 8;
    const bool with_extra = iter % 3 != 0;
    // The extra input as two parts, lengths around the SHAKE256 rate of 136 and decapsulation's
    // 32 + 1088.
    const std::array<std::size_t, 8> lengths = {0, 1, 103, 135, 136, 137, 272, 1120};
    Bytes extra_in(lengths[static_cast<std::size_t>(iter) % lengths.size()]);
    for (auto& x : extra_in) x = static_cast<std::uint8_t>(rng());
    const std::size_t split = extra_in.empty() ? 0 : rng() % extra_in.size();
    const auto first = static_cast<std::uint8_t>(rng());

    std::array<std::array<Poly, 9>, 2> matrix;
    std::array<std::array<Poly, 7>, 2> noise;
    std::array<std::array<std::uint8_t, 32>, 2> extra_out;
    for (const bool portable : {true, false}) {
      std::array<mlkem::SampleNttJob, 9> jobs;
      for (std::size_t n = 0; n < matrix_count; ++n) {
        jobs[n] = {&matrix[portable][n], static_cast<std::uint8_t>(n % 3),
                   static_cast<std::uint8_t>(n / 3)};
      }
      std::array<Poly*, 7> ptrs;
      for (std::size_t n = 0; n < 7; ++n) ptrs[n] = &noise[portable][n];
      const mlkem::Shake256Job job{
          {ByteView(extra_in).first(split), ByteView(extra_in).subspan(split)},
          extra_out[portable]};
      mlkem::SetPortableOnlyForTesting(portable);
      mlkem::SampleMany(std::span(jobs).first(matrix_count), rho,
                        std::span<Poly* const>(ptrs.data(), noise_count), s, first,
                        with_extra ? &job : nullptr);
      mlkem::SetPortableOnlyForTesting(false);
    }
    for (std::size_t n = 0; n < matrix_count; ++n) {
      ASSERT_EQ(matrix[0][n].c, matrix[1][n].c) << iter << " " << n;
      ASSERT_EQ(
          matrix[0][n].c,
          SpecSampleNtt(rho, static_cast<std::uint8_t>(n % 3), static_cast<std::uint8_t>(n / 3)).c);
    }
    for (std::size_t n = 0; n < noise_count; ++n) {
      ASSERT_EQ(noise[0][n].c, noise[1][n].c) << iter << " " << n;
    }
    if (with_extra) {
      ASSERT_EQ(extra_out[0], extra_out[1]) << iter;
      const Bytes want = Shake256::Hash(extra_in, 32);
      ASSERT_EQ(Bytes(extra_out[1].begin(), extra_out[1].end()), want) << iter;
    }
  }
}
#endif  // VEIL_MLKEM_HAVE_AVX2

TEST(MlKemAvx2, SamplingMatchesPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(10);
  for (int iter = 0; iter < 100; ++iter) {
    std::array<std::uint8_t, 32> rho;
    for (auto& x : rho) x = static_cast<std::uint8_t>(rng());
    // Matrices: 9 entries on the x4 sampler (SampleMany) against the portable code.
    mlkem::PolyMatrix<3> avx2;
    mlkem::PolyMatrix<3> portable;
    mlkem::GenerateMatrix<3>(avx2, rho, iter % 2 == 0);
    mlkem::SetPortableOnlyForTesting(true);
    mlkem::GenerateMatrix<3>(portable, rho, iter % 2 == 0);
    mlkem::SetPortableOnlyForTesting(false);
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < 3; ++j) ASSERT_EQ(avx2[i][j].c, portable[i][j].c);
    }
    // Every batch size from 1 to 9: SampleNTT jobs and noise polynomials against one call each.
    const std::size_t count = 1 + static_cast<std::size_t>(iter) % 9;
    std::array<Poly, 9> sampled;
    std::array<mlkem::SampleNttJob, 9> jobs;
    for (std::size_t n = 0; n < count; ++n) {
      jobs[n] = {&sampled[n], static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(iter)};
    }
    mlkem::SampleNttMany(std::span(jobs).first(count), rho);
    for (std::size_t n = 0; n < count; ++n) {
      ASSERT_EQ(sampled[n].c, SpecSampleNtt(rho, jobs[n].b0, jobs[n].b1).c) << count << " " << n;
    }
    std::array<Poly, 9> noise;
    std::array<Poly*, 9> ptrs;
    for (std::size_t n = 0; n < 9; ++n) ptrs[n] = &noise[n];
    const auto first = static_cast<std::uint8_t>(rng());
    mlkem::SamplePolyCbdPrfMany<2>(std::span<Poly* const>(ptrs.data(), count), rho, first);
    for (std::size_t n = 0; n < count; ++n) {
      Poly want;
      mlkem::SamplePolyCbdPrf<2>(want, rho, static_cast<std::uint8_t>(first + n));
      ASSERT_EQ(noise[n].c, want.c) << count << " " << n;
    }
  }
}

TEST(MlKemAvx2, SampleNttRefillMatchesPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  // rho values for which at least one of the four streams of a batch needs a fourth block.
  std::array<std::uint8_t, 32> rho{};
  int refills = 0;
  for (int seed = 0; seed < 3000 && refills < 5; ++seed) {
    rho[0] = static_cast<std::uint8_t>(seed);
    rho[1] = static_cast<std::uint8_t>(seed >> 8);
    bool needs_refill = false;
    for (std::uint8_t j = 0; j < 4; ++j) {
      Shake128 xof;
      xof.Absorb(rho);
      const std::array<std::uint8_t, 2> ji = {j, 0};
      xof.Absorb(ji);
      std::array<std::uint8_t, 504> buf;
      xof.Squeeze(buf);
      int accepted = 0;
      for (std::size_t p = 0; p < buf.size(); p += 3) {
        accepted += (buf[p] | ((buf[p + 1] & 15) << 8)) < kQ;
        accepted += ((buf[p + 1] >> 4) | (buf[p + 2] << 4)) < kQ;
      }
      needs_refill |= accepted < 256;
    }
    if (!needs_refill) continue;
    ++refills;
    std::array<Poly, 4> got;
    std::array<mlkem::SampleNttJob, 4> jobs;
    for (std::uint8_t j = 0; j < 4; ++j) jobs[j] = {&got[j], j, 0};
    mlkem::SampleNttMany(jobs, rho);
    for (std::uint8_t j = 0; j < 4; ++j) ASSERT_EQ(got[j].c, SpecSampleNtt(rho, j, 0).c) << seed;
  }
  EXPECT_GT(refills, 0);
}

TEST(MlKemAvx2, KemOutputsMatchPortable) {
  if (!HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (std::uint8_t seed = 0; seed < 20; ++seed) {
    std::array<Bytes, 2> ek;
    std::array<Bytes, 2> dk;
    std::array<Bytes, 2> c;
    std::array<Bytes, 2> k;
    std::array<Bytes, 2> k_rejected;
    for (const bool portable : {true, false}) {
      mlkem::SetPortableOnlyForTesting(portable);
      const auto kp = for_testing::MlKem768KeyGenInternal(
          SecretOf<32>(seed), SecretOf<32>(static_cast<std::uint8_t>(seed + 100)));
      const auto enc = for_testing::MlKem768EncapsInternal(
          kp.ek, SecretOf<32>(static_cast<std::uint8_t>(seed + 200)));
      auto tampered = enc.ciphertext;
      tampered[seed] ^= 1;
      ek[portable] = ToBytes(kp.ek.bytes());
      dk[portable] = ToBytes(kp.dk.Encode().Expose());
      c[portable] = ToBytes(enc.ciphertext);
      k[portable] = ToBytes(MlKem768Decaps(kp.dk, enc.ciphertext)->Expose());
      k_rejected[portable] = ToBytes(MlKem768Decaps(kp.dk, tampered)->Expose());
      EXPECT_EQ(k[portable], ToBytes(enc.shared_secret.Expose()));
    }
    mlkem::SetPortableOnlyForTesting(false);
    EXPECT_EQ(ek[0], ek[1]);
    EXPECT_EQ(dk[0], dk[1]);
    EXPECT_EQ(c[0], c[1]);
    EXPECT_EQ(k[0], k[1]);
    EXPECT_EQ(k_rejected[0], k_rejected[1]);
  }
}

// ---------------------------------------------------------------------------------------------
// Conformance files, through the veil-vectors runners

std::string Fips203(const char* rel) { return test::DataPath(std::string("fips203/") + rel); }

void ExpectAllPass(const Result<vectors::Report>& r, int cases) {
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->passed, cases) << r->algorithm;
  EXPECT_EQ(r->failed, 0) << r->algorithm;
  for (const auto& f : r->failures) ADD_FAILURE() << f;
}

nlohmann::json Load(const char* rel) { return vectors::LoadJsonFile(Fips203(rel)).value(); }

// Runs `body` on the portable code and, when the CPU has AVX2, on the AVX2 code (simd.h).
void OnEveryPath(const std::function<void()>& body) {
  for (const bool portable : {true, false}) {
    mlkem::SetPortableOnlyForTesting(portable);
    if (!portable && !mlkem::UseAvx2()) continue;
    SCOPED_TRACE(portable ? "portable path" : "AVX2 path");
    body();
  }
  mlkem::SetPortableOnlyForTesting(false);
}

TEST(MlKem768Vectors, AcvpKeyGen) {
  OnEveryPath([] {
    ExpectAllPass(vectors::RunAcvpMlKem(Load("acvp/ML-KEM-keyGen-FIPS203/internalProjection.json")),
                  25);
  });
}

TEST(MlKem768Vectors, AcvpEncapDecap) {
  OnEveryPath([] {
    ExpectAllPass(
        vectors::RunAcvpMlKem(Load("acvp/ML-KEM-encapDecap-FIPS203/internalProjection.json")), 35);
  });
}

TEST(MlKem768Vectors, CctvInvalidModulusKeysAreAllRejected) {
  OnEveryPath([] {
    ExpectAllPass(vectors::RunCctvMlKemModulus(Fips203("cctv/modulus-ML-KEM-768.txt")), 780);
  });
}

TEST(MlKem768Vectors, WycheproofKeyGenFromSeed) {
  OnEveryPath([] {
    ExpectAllPass(vectors::RunWycheproofMlKem(Load("wycheproof/mlkem_768_keygen_seed_test.json")),
                  100);
  });
}

TEST(MlKem768Vectors, WycheproofDecapsFromSeedStrcmp) {
  OnEveryPath([] {
    ExpectAllPass(vectors::RunWycheproofMlKem(Load("wycheproof/mlkem_768_test.json")), 1);
  });
}

TEST(MlKem768Vectors, WycheproofSemiExpandedDecaps) {
  OnEveryPath([] {
    ExpectAllPass(
        vectors::RunWycheproofMlKem(Load("wycheproof/mlkem_768_semi_expanded_decaps_test.json")),
        7);
  });
}

// The encaps schema and the validation-only decaps schema have no file in tests/data (see its
// README); their runners are exercised here on cases built from our own keys, in the schemas'
// field layout.
TEST(MlKem768Vectors, WycheproofEncapsAndDecapsSchemasOnGeneratedCases) {
  const auto kp = for_testing::MlKem768KeyGenInternal(SecretOf<32>(50), SecretOf<32>(51));
  const auto m = SecretOf<32>(52);
  const auto enc = for_testing::MlKem768EncapsInternal(kp.ek, m);
  Bytes overflow = ToBytes(kp.ek.bytes());
  overflow[0] = 0x01;
  overflow[1] = static_cast<std::uint8_t>((overflow[1] & 0xF0) | 0x0D);  // first coefficient = q
  const std::string m_hex = test::Hx(m.Expose());
  nlohmann::json encaps = {{"algorithm", "ML-KEM"},
                           {"schema", "mlkem_encaps_test_schema.json"},
                           {"testGroups",
                            {{{"type", "MLKEMEncapsTest"},
                              {"parameterSet", "ML-KEM-768"},
                              {"tests",
                               {{{"tcId", 1},
                                 {"m", m_hex},
                                 {"ek", test::Hx(kp.ek.bytes())},
                                 {"c", test::Hx(enc.ciphertext)},
                                 {"K", test::Hx(enc.shared_secret.Expose())},
                                 {"result", "valid"}},
                                {{"tcId", 2},
                                 {"m", m_hex},
                                 {"ek", test::Hx(overflow)},
                                 {"c", ""},
                                 {"K", ""},
                                 {"result", "invalid"}},
                                {{"tcId", 3},
                                 {"m", m_hex + "42"},
                                 {"ek", test::Hx(kp.ek.bytes())},
                                 {"c", ""},
                                 {"K", ""},
                                 {"result", "invalid"}}}}}}}};
  auto r = vectors::RunWycheproofMlKem(encaps);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->passed, 3);
  EXPECT_EQ(r->failed, 0);
  for (const auto& f : r->failures) ADD_FAILURE() << f;

  const SecretBytes dk = kp.dk.Encode();
  const std::string dk_hex = test::Hx(dk.Expose());
  nlohmann::json decaps = {
      {"algorithm", "ML-KEM"},
      {"schema", "mlkem_decaps_test_schema.json"},
      {"testGroups",
       {{{"type", "MLKEMDecapsValidationTest"},
         {"parameterSet", "ML-KEM-768"},
         {"tests",
          {{{"tcId", 1}, {"dk", dk_hex}, {"c", test::Hx(enc.ciphertext)}, {"result", "valid"}},
           {{"tcId", 2},
            {"dk", dk_hex},
            {"c", test::Hx(enc.ciphertext) + "00"},
            {"result", "invalid"}},
           {{"tcId", 3},
            {"dk", dk_hex.substr(2)},
            {"c", test::Hx(enc.ciphertext)},
            {"result", "invalid"}}}}}}}};
  r = vectors::RunWycheproofMlKem(decaps);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->passed, 3);
  EXPECT_EQ(r->failed, 0);
  for (const auto& f : r->failures) ADD_FAILURE() << f;

  // And the encaps runner fails a case whose expected K is wrong.
  std::string k_hex = test::Hx(enc.shared_secret.Expose());
  k_hex[0] = k_hex[0] == '0' ? '1' : '0';
  encaps["testGroups"][0]["tests"][0]["K"] = k_hex;
  r = vectors::RunWycheproofMlKem(encaps);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
}

// ---------------------------------------------------------------------------------------------
// Mutation checks: a runner or comparison that cannot fail would prove nothing.

TEST(MlKem768Vectors, AFlippedExpectedValueFailsEachAcvpFunction) {
  auto flip = [](nlohmann::json& t, const char* field) {
    std::string s = t[field].get<std::string>();
    s[0] = s[0] == '0' ? '1' : '0';  // one bit of the first byte's high nibble
    t[field] = s;
  };
  auto keygen = Load("acvp/ML-KEM-keyGen-FIPS203/internalProjection.json");
  flip(keygen["testGroups"][0]["tests"][3], "dk");
  auto r = vectors::RunAcvpMlKem(keygen);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
  EXPECT_EQ(r->passed, 24);

  auto encdec = Load("acvp/ML-KEM-encapDecap-FIPS203/internalProjection.json");
  for (auto& g : encdec["testGroups"]) {
    flip(g["tests"][1], g["function"] == "encapsulation" ? "c" : "k");
  }
  r = vectors::RunAcvpMlKem(encdec);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 2);
  EXPECT_EQ(r->passed, 33);
}

TEST(MlKem768Vectors, WycheproofVerdictsAreEnforced) {
  auto j = Load("wycheproof/mlkem_768_keygen_seed_test.json");
  auto& tests = j["testGroups"][0]["tests"];
  tests[0]["result"] = "invalid";  // a correct key generation that claims to be invalid
  std::string ek = tests[1]["ek"].get<std::string>();
  ek[100] = ek[100] == 'a' ? 'b' : 'a';
  tests[1]["ek"] = ek;  // a wrong expected ek
  auto r = vectors::RunWycheproofMlKem(j);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 2);
  EXPECT_EQ(r->passed, 98);
}

TEST(MlKem768Vectors, CctvRunnerFailsOnAValidKey) {
  const veil::testing::ScratchDir scratch("veil-mlkem");
  const std::string path = (scratch.path() / "mlkem_cctv_mutation.txt").string();
  {
    std::ofstream out(path);
    out << test::Hx(MlKem768KeyGen().ek.bytes()) << "\n";
  }
  auto r = vectors::RunCctvMlKemModulus(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
}

TEST(MlKem768Vectors, UnsupportedInputsAreErrorsNotPasses) {
  auto wp = Load("wycheproof/mlkem_768_keygen_seed_test.json");
  wp["testGroups"][0]["parameterSet"] = "ML-KEM-512";
  auto r = vectors::RunWycheproofMlKem(wp);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unsupported"), std::string::npos);
  wp = Load("wycheproof/mlkem_768_keygen_seed_test.json");
  wp["schema"] = "mlkem_something_else_schema.json";
  EXPECT_FALSE(vectors::RunWycheproofMlKem(wp).ok());

  auto acvp = Load("acvp/ML-KEM-keyGen-FIPS203/internalProjection.json");
  acvp["mode"] = "sigGen";
  EXPECT_FALSE(vectors::RunAcvpMlKem(acvp).ok());
  acvp = Load("acvp/ML-KEM-keyGen-FIPS203/internalProjection.json");
  for (auto& g : acvp["testGroups"]) g["parameterSet"] = "ML-KEM-1024";
  EXPECT_FALSE(vectors::RunAcvpMlKem(acvp).ok());  // nothing left to run
  EXPECT_EQ(vectors::RunCctvMlKemModulus("/nonexistent").status().code(), Code::kNotFound);
}

TEST(MlKem768Vectors, AcvpKeyChecks) {
  // The key-check functions of later ACVP releases, on keys made here.
  const auto kp = for_testing::MlKem768KeyGenInternal(SecretOf<32>(1), SecretOf<32>(2));
  Bytes bad_ek = ToBytes(kp.ek.bytes());
  bad_ek[0] = 0xFF;
  bad_ek[1] |= 0x0F;  // first coefficient 4095
  const SecretBytes dk = kp.dk.Encode();
  Bytes bad_dk = ToBytes(dk.Expose());
  bad_dk[2 * 1152 + 32] ^= 1;  // H(ek)
  nlohmann::json j = {{"algorithm", "ML-KEM"},
                      {"mode", "encapDecap"},
                      {"testGroups",
                       {{{"parameterSet", "ML-KEM-768"},
                         {"function", "encapsulationKeyCheck"},
                         {"tests",
                          {{{"tcId", 1}, {"ek", test::Hx(kp.ek.bytes())}, {"testPassed", true}},
                           {{"tcId", 2}, {"ek", test::Hx(bad_ek)}, {"testPassed", false}}}}},
                        {{"parameterSet", "ML-KEM-768"},
                         {"function", "decapsulationKeyCheck"},
                         {"tests",
                          {{{"tcId", 3}, {"dk", test::Hx(dk.Expose())}, {"testPassed", true}},
                           {{"tcId", 4}, {"dk", test::Hx(bad_dk)}, {"testPassed", false}},
                           {{"tcId", 5}, {"dk", test::Hx(bad_dk)}, {"testPassed", true}}}}}}}};
  auto r = vectors::RunAcvpMlKem(j);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->passed, 4);
  EXPECT_EQ(r->failed, 1);  // tcId 5 expects the bad key to pass
}

// ---------------------------------------------------------------------------------------------
// The public API

TEST(MlKem768, RoundTrip) {
  for (int i = 0; i < 20; ++i) {
    const auto kp = MlKem768KeyGen();
    const auto enc = MlKem768Encaps(kp.ek);
    auto k = MlKem768Decaps(kp.dk, enc.ciphertext);
    ASSERT_TRUE(k.ok());
    EXPECT_TRUE(k->ConstantTimeEquals(enc.shared_secret));
  }
}

TEST(MlKem768, EncodingsRoundTripAndSeedFormMatchesKeyGen) {
  const auto kp = for_testing::MlKem768KeyGenInternal(SecretOf<32>(10), SecretOf<32>(20));
  auto ek = MlKem768EncapsulationKey::Decode(kp.ek.bytes());
  ASSERT_TRUE(ek.ok());
  EXPECT_EQ(ToBytes(ek->bytes()), ToBytes(kp.ek.bytes()));
  EXPECT_EQ(ToBytes(ek->hash()), ToBytes(Sha3_256::Hash(kp.ek.bytes())));

  const SecretBytes dk_bytes = kp.dk.Encode();
  ASSERT_EQ(dk_bytes.size(), kMlKem768DecapsulationKeySize);
  auto dk = MlKem768DecapsulationKey::Decode(dk_bytes.Expose());
  ASSERT_TRUE(dk.ok());
  EXPECT_TRUE(dk->Encode().ConstantTimeEquals(dk_bytes));
  EXPECT_EQ(ToBytes(dk->encapsulation_key().bytes()), ToBytes(kp.ek.bytes()));

  Secret<64> d_z;
  for (std::size_t i = 0; i < 32; ++i) {
    d_z.ExposeMutable()[i] = SecretOf<32>(10).Expose()[i];
    d_z.ExposeMutable()[32 + i] = SecretOf<32>(20).Expose()[i];
  }
  const auto from_seed = MlKem768DecapsulationKey::FromSeed(d_z);
  EXPECT_TRUE(from_seed.Encode().ConstantTimeEquals(dk_bytes));

  // dk = dk_PKE || ek || H(ek) || z.
  const ByteView dkv = dk_bytes.Expose();
  EXPECT_EQ(ToBytes(dkv.subspan(1152, 1184)), ToBytes(kp.ek.bytes()));
  EXPECT_EQ(ToBytes(dkv.subspan(2336, 32)), ToBytes(Sha3_256::Hash(kp.ek.bytes())));
  EXPECT_EQ(ToBytes(dkv.subspan(2368, 32)), ToBytes(SecretOf<32>(20).Expose()));

  // Encaps_internal is deterministic in m; Decaps recovers its key.
  const auto e1 = for_testing::MlKem768EncapsInternal(kp.ek, SecretOf<32>(30));
  const auto e2 = for_testing::MlKem768EncapsInternal(*ek, SecretOf<32>(30));
  EXPECT_EQ(e1.ciphertext, e2.ciphertext);
  EXPECT_TRUE(e1.shared_secret.ConstantTimeEquals(e2.shared_secret));
  auto k = MlKem768Decaps(*dk, e1.ciphertext);
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k->ConstantTimeEquals(e1.shared_secret));
}

TEST(MlKem768, TamperedCiphertextGivesTheImplicitRejectionKey) {
  const auto kp = MlKem768KeyGen();
  const auto enc = MlKem768Encaps(kp.ek);
  const SecretBytes dk = kp.dk.Encode();
  const ByteView z = dk.Expose().last(32);
  for (const std::size_t pos :
       {std::size_t{0}, std::size_t{500}, std::size_t{960}, kMlKem768CiphertextSize - 1}) {
    auto c = enc.ciphertext;
    c[pos] ^= 0x04;
    auto k = MlKem768Decaps(kp.dk, c);
    ASSERT_TRUE(k.ok());
    EXPECT_FALSE(k->ConstantTimeEquals(enc.shared_secret));
    // K_bar = J(z || c) = SHAKE256(z || c, 32) (FIPS 203 Algorithm 18, line 7).
    const Bytes k_bar = Shake256::Hash(Concat({z, c}), 32);
    EXPECT_EQ(ToBytes(k->Expose()), k_bar) << pos;
  }
  // The genuine ciphertext still decapsulates to the real key.
  auto k = MlKem768Decaps(kp.dk, enc.ciphertext);
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k->ConstantTimeEquals(enc.shared_secret));
}

TEST(MlKem768, WrongLengthsAreInvalidArgument) {
  const auto kp = MlKem768KeyGen();
  const Bytes ek = ToBytes(kp.ek.bytes());
  const SecretBytes dk = kp.dk.Encode();
  for (const std::size_t n : {std::size_t{0}, ek.size() - 1, ek.size() + 1}) {
    Bytes b(n, 0);
    EXPECT_EQ(MlKem768EncapsulationKey::Decode(b).status().code(), Code::kInvalidArgument) << n;
  }
  for (const std::size_t n : {std::size_t{0}, dk.size() - 1, dk.size() + 1}) {
    Bytes b(n, 0);
    std::copy_n(dk.Expose().begin(), std::min(n, dk.size()), b.begin());
    EXPECT_EQ(MlKem768DecapsulationKey::Decode(b).status().code(), Code::kInvalidArgument) << n;
  }
  const auto enc = MlKem768Encaps(kp.ek);
  for (const std::size_t n :
       {std::size_t{0}, enc.ciphertext.size() - 1, enc.ciphertext.size() + 1}) {
    Bytes c(n, 0);
    std::copy_n(enc.ciphertext.begin(), std::min(n, enc.ciphertext.size()), c.begin());
    EXPECT_EQ(MlKem768Decaps(kp.dk, c).status().code(), Code::kInvalidArgument) << n;
  }
}

TEST(MlKem768, DecapsulationKeyChecks) {
  const auto kp = MlKem768KeyGen();
  const SecretBytes dk = kp.dk.Encode();
  // A wrong H(ek): every bit position of the hash is checked.
  for (const std::size_t bit :
       {std::size_t{0}, std::size_t{7}, std::size_t{129}, std::size_t{255}}) {
    Bytes bad = ToBytes(dk.Expose());
    bad[2336 + bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    EXPECT_EQ(MlKem768DecapsulationKey::Decode(bad).status().code(), Code::kInvalidArgument);
  }
  // A changed ek no longer matches its hash.
  Bytes bad = ToBytes(dk.Expose());
  bad[1152 + 10] ^= 1;
  EXPECT_EQ(MlKem768DecapsulationKey::Decode(bad).status().code(), Code::kInvalidArgument);
  // An embedded ek that fails the modulus check is rejected even with a matching hash.
  bad = ToBytes(dk.Expose());
  bad[1152] = 0xFF;
  bad[1153] |= 0x0F;
  const auto h = Sha3_256::Hash(ByteView(bad).subspan(1152, 1184));
  std::copy(h.begin(), h.end(), bad.begin() + 2336);
  EXPECT_EQ(MlKem768DecapsulationKey::Decode(bad).status().code(), Code::kInvalidArgument);
  // dk_PKE and z are not checked by the standard: a changed z decodes and changes only K_bar.
  bad = ToBytes(dk.Expose());
  bad[2399] ^= 1;
  EXPECT_TRUE(MlKem768DecapsulationKey::Decode(bad).ok());
}

TEST(MlKem768, EncapsulationKeyModulusCheckAtEveryPolynomial) {
  const auto kp = MlKem768KeyGen();
  for (const std::size_t poly : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    for (const std::size_t pair : {std::size_t{0}, std::size_t{127}}) {
      for (const bool high : {false, true}) {
        Bytes ek = ToBytes(kp.ek.bytes());
        std::uint8_t* p = ek.data() + 384 * poly + 3 * pair;
        if (high) {  // second coefficient of the pair := 3329 = 0xD01
          p[1] = static_cast<std::uint8_t>((p[1] & 0x0F) | 0x10);
          p[2] = 0xD0;
        } else {  // first coefficient := 3329
          p[0] = 0x01;
          p[1] = static_cast<std::uint8_t>((p[1] & 0xF0) | 0x0D);
        }
        EXPECT_EQ(MlKem768EncapsulationKey::Decode(ek).status().code(), Code::kInvalidArgument);
      }
    }
  }
  // rho is not range-checked: any 32 bytes are fine.
  Bytes ek = ToBytes(kp.ek.bytes());
  for (std::size_t i = 1152; i < 1184; ++i) ek[i] = 0xFF;
  EXPECT_TRUE(MlKem768EncapsulationKey::Decode(ek).ok());
}

TEST(MlKem768, ComparisonsDetectOneFlippedBit) {
  // The mutation check on this file's own comparisons: flipping any one bit of an expected value
  // must make the comparison fail.
  const auto kp = for_testing::MlKem768KeyGenInternal(SecretOf<32>(40), SecretOf<32>(41));
  const auto enc = for_testing::MlKem768EncapsInternal(kp.ek, SecretOf<32>(42));
  auto k = MlKem768Decaps(kp.dk, enc.ciphertext);
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(k->ConstantTimeEquals(enc.shared_secret));
  for (std::size_t bit = 0; bit < 256; bit += 17) {
    auto wrong = enc.shared_secret.Clone();
    wrong.ExposeMutable()[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    EXPECT_FALSE(k->ConstantTimeEquals(wrong)) << bit;
  }
}

}  // namespace
}  // namespace veil::crypto
