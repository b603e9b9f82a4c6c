// Borromean range proofs: completeness at every width, sizes, strict decoding, and soundness
// (flipped bits, wrong statements, a cheating prover with a value that does not fit).
#include "veil/zk/borromean_range.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <span>
#include <vector>

#include "../../src/zk/borromean_range_internal.h"
#include "zk_test_util.h"

namespace veil::zk {
namespace {

Transcript Context() {
  Transcript t("veil.test.borromean", 1);
  t.AppendMessage("record", AsBytes("key-1"));
  return t;
}

Commitment CommitTo(std::uint64_t v, const ec::Scalar& r) {
  return PedersenGens::Default().Commit(ec::Scalar::FromUint64(v), r);
}

std::uint64_t RandomBelow(unsigned bits) {
  std::uint64_t v;
  randombytes_buf(&v, sizeof v);
  return bits == 64 ? v : v & ((std::uint64_t{1} << bits) - 1);
}

bool Verifies(const BorromeanRangeProof& proof, const Commitment& c, unsigned bits) {
  Transcript t = Context();
  return proof.Verify(t, c, bits).ok();
}

bool VerifiesBytes(const Bytes& bytes, const Commitment& c, unsigned bits) {
  auto proof = BorromeanRangeProof::Decode(bytes);
  return proof.ok() && Verifies(*proof, c, bits);
}

TEST(BorromeanRangeTest, EveryWidthProvesItsValues) {
  // A random value at every width; zero and the maximum at the widths with edge digits.
  for (unsigned bits = 1; bits <= 64; ++bits) {
    const std::uint64_t max = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    std::vector<std::uint64_t> values = {RandomBelow(bits)};
    if (bits <= 3 || bits == 8 || bits == 40 || bits >= 63) values.insert(values.end(), {0, max});
    for (const std::uint64_t v : values) {
      const ec::Scalar r = ec::Scalar::Random();
      Transcript t = Context();
      auto proof = BorromeanRangeProof::Prove(t, v, r, bits);
      ASSERT_TRUE(proof.ok()) << bits;
      const Bytes enc = proof->Encode();
      ASSERT_EQ(enc.size(), BorromeanRangeProof::SizeForBits(bits));
      ASSERT_TRUE(VerifiesBytes(enc, CommitTo(v, r), bits)) << "bits=" << bits << " v=" << v;
    }
  }
}

TEST(BorromeanRangeTest, SizesFollowTheFormula) {
  // 2 + 32 (k + sum n_i): 40 bits = 20 base-4 digits.
  EXPECT_EQ(BorromeanRangeProof::SizeForBits(40), 2u + 32u * (20 + 80));
  EXPECT_EQ(BorromeanRangeProof::SizeForBits(40), 3202u);
  EXPECT_EQ(BorromeanRangeProof::SizeForBits(64), 5122u);
  EXPECT_EQ(BorromeanRangeProof::SizeForBits(1), 2u + 32u * (1 + 2));
  EXPECT_EQ(BorromeanRangeProof::SizeForBits(7), 2u + 32u * (4 + 14));
}

TEST(BorromeanRangeTest, ValuesThatDoNotFitAreRefused) {
  const ec::Scalar r = ec::Scalar::Random();
  for (const unsigned bits : {1u, 8u, 33u, 63u}) {
    Transcript t = Context();
    auto proof = BorromeanRangeProof::Prove(t, std::uint64_t{1} << bits, r, bits);
    EXPECT_EQ(proof.status().code(), Code::kInvalidArgument) << bits;
  }
  Transcript t = Context();
  EXPECT_FALSE(BorromeanRangeProof::Prove(t, 1, r, 0).ok());
  EXPECT_FALSE(BorromeanRangeProof::Prove(t, 1, r, 65).ok());
}

TEST(BorromeanRangeTest, ACheatingProverCannotProveAValueThatDoesNotFit) {
  // The honest prover's rings over v mod 2^bits, against the commitment to the whole v: the last
  // ring has no member whose discrete log the prover knows.
  for (const unsigned bits : {4u, 9u, 40u}) {
    const std::uint64_t v = (std::uint64_t{1} << bits) + 5;
    const ec::Scalar r = ec::Scalar::Random();
    Transcript t = Context();
    const BorromeanRangeProof proof = BorromeanRangeInternal::ProveUnchecked(t, v, r, bits);
    EXPECT_FALSE(Verifies(proof, CommitTo(v, r), bits)) << bits;
    EXPECT_FALSE(VerifiesBytes(proof.Encode(), CommitTo(v, r), bits)) << bits;
  }
  // A "negative" value: 2^64 - 1 proven as 8 bits.
  const ec::Scalar r = ec::Scalar::Random();
  Transcript t = Context();
  const auto proof = BorromeanRangeInternal::ProveUnchecked(t, ~std::uint64_t{0}, r, 8);
  EXPECT_FALSE(Verifies(proof, CommitTo(~std::uint64_t{0}, r), 8));
}

TEST(BorromeanRangeTest, WrongStatementsAreRejected) {
  const ec::Scalar r = ec::Scalar::Random();
  Transcript t = Context();
  auto proof = BorromeanRangeProof::Prove(t, 1234, r, 16);
  ASSERT_TRUE(proof.ok());
  EXPECT_TRUE(Verifies(*proof, CommitTo(1234, r), 16));
  EXPECT_FALSE(Verifies(*proof, CommitTo(1235, r), 16));
  EXPECT_FALSE(Verifies(*proof, CommitTo(1234, r + ec::Scalar::One()), 16));
  EXPECT_FALSE(Verifies(*proof, CommitTo(1234 + 65536, r), 16));
  // Another context (record key) in the transcript.
  Transcript other("veil.test.borromean", 1);
  other.AppendMessage("record", AsBytes("key-2"));
  EXPECT_FALSE(proof->Verify(other, CommitTo(1234, r), 16).ok());
  // The same proof relabelled with another width does not even decode.
  Bytes enc = proof->Encode();
  enc[1] = 15;
  EXPECT_EQ(BorromeanRangeProof::Decode(enc).status().code(), Code::kInvalidArgument);
}

TEST(BorromeanRangeTest, EveryFlippedBitOfASmallProofIsRejected) {
  const ec::Scalar r = ec::Scalar::Random();
  Transcript t = Context();
  auto proof = BorromeanRangeProof::Prove(t, 5, r, 3);
  ASSERT_TRUE(proof.ok());
  const Commitment c = CommitTo(5, r);
  const Bytes good = proof->Encode();
  ASSERT_TRUE(VerifiesBytes(good, c, 3));
  for (std::size_t bit = 0; bit < 8 * good.size(); ++bit) {
    Bytes bad = good;
    bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    ASSERT_FALSE(VerifiesBytes(bad, c, 3)) << "bit " << bit;
  }
}

TEST(BorromeanRangeTest, SampledFlippedBitsOfA40BitProofAreRejected) {
  const ec::Scalar r = ec::Scalar::Random();
  Transcript t = Context();
  const std::uint64_t v = RandomBelow(40);
  auto proof = BorromeanRangeProof::Prove(t, v, r, 40);
  ASSERT_TRUE(proof.ok());
  const Commitment c = CommitTo(v, r);
  const Bytes good = proof->Encode();
  // Every field once: the header, e0, each digit commitment and each response (one random bit
  // in a random byte of each 32-byte field).
  for (std::size_t field = 0; 2 + 32 * field < good.size(); ++field) {
    Bytes bad = good;
    const std::size_t byte =
        field == 0 ? randombytes_uniform(2) : 2 + 32 * (field - 1) + randombytes_uniform(32);
    bad[byte] ^= static_cast<std::uint8_t>(1u << randombytes_uniform(8));
    ASSERT_FALSE(VerifiesBytes(bad, c, 40)) << "byte " << byte;
  }
}

TEST(BorromeanRangeTest, DecodingIsStrict) {
  const ec::Scalar r = ec::Scalar::Random();
  Transcript t = Context();
  auto proof = BorromeanRangeProof::Prove(t, 9, r, 8);
  ASSERT_TRUE(proof.ok());
  const Bytes good = proof->Encode();
  const auto code = [](const Bytes& b) { return BorromeanRangeProof::Decode(b).status().code(); };
  EXPECT_TRUE(BorromeanRangeProof::Decode(good).ok());
  EXPECT_EQ(code({}), Code::kInvalidArgument);
  EXPECT_EQ(code(Bytes(good.begin(), good.end() - 1)), Code::kInvalidArgument);
  Bytes longer = good;
  longer.push_back(0);
  EXPECT_EQ(code(longer), Code::kInvalidArgument);
  Bytes version = good;
  version[0] = BorromeanRangeProof::kVersion + 1;
  EXPECT_EQ(code(version), Code::kInvalidArgument);
  Bytes zero_bits = good;
  zero_bits[1] = 0;
  EXPECT_EQ(code(zero_bits), Code::kInvalidArgument);
  // A response set to l (non-canonical) and a digit commitment that is not an encoding.
  Bytes scalar = good;
  const std::size_t last = good.size() - 32;
  const std::array<std::uint8_t, 32> l = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58,
                                          0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                                          0,    0,    0,    0,    0,    0,    0,    0,
                                          0,    0,    0,    0,    0,    0,    0,    0x10};
  std::copy(l.begin(), l.end(), scalar.begin() + static_cast<std::ptrdiff_t>(last));
  EXPECT_EQ(code(scalar), Code::kInvalidArgument);
  Bytes point = good;
  std::fill(point.begin() + 34, point.begin() + 66, 0xff);
  EXPECT_EQ(code(point), Code::kInvalidArgument);
  // Round trip.
  auto again = BorromeanRangeProof::Decode(good);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Encode(), good);
  EXPECT_EQ(again->bits(), 8u);
}

// The width is the verifier's statement: a proof of another width, which shows a weaker (or
// stronger) bound than the one the caller needs, is refused before any check.
TEST(BorromeanRangeTest, TheVerifierStatesTheWidth) {
  const ec::Scalar r = ec::Scalar::Random();
  const std::uint64_t v = 40000;  // above 2^8, below 2^16
  const Commitment c = CommitTo(v, r);
  Transcript t = Context();
  auto wide = BorromeanRangeProof::Prove(t, v, r, 16);
  ASSERT_TRUE(wide.ok());
  EXPECT_TRUE(Verifies(*wide, c, 16));
  for (const unsigned bits : {8u, 15u, 17u, 64u, 0u, 65u}) {
    Transcript tv = Context();
    EXPECT_EQ(wide->Verify(tv, c, bits).code(), Code::kInvalidArgument) << bits;
  }
  // Its encoding, decoded by a verifier that expects 8 bits, is refused all the same.
  EXPECT_FALSE(VerifiesBytes(wide->Encode(), c, 8));
  // A default-constructed proof has no width at all.
  Transcript td = Context();
  EXPECT_EQ(BorromeanRangeProof().Verify(td, c, 8).code(), Code::kInvalidArgument);
}

// The prover binds the statement (width and commitment) before it forks its nonce generator: with
// a broken generator (the same 32 bytes every time), two proofs from one witness for two widths
// must still draw different nonces. Were they the same, the digit blinding r_0 (and so the digit)
// would follow from two responses under one nonce with different challenges.
TEST(BorromeanRangeTest, ABrokenRngStillGivesEachStatementItsOwnNonces) {
  const std::array<std::uint8_t, 32> stuck{};
  const std::span<const std::uint8_t, 32> randomness(stuck);
  const ec::Scalar r = ec::Scalar::FromUint64(12345);
  const std::uint64_t v = 77;
  auto prove = [&](unsigned bits) {
    Transcript t = Context();
    return BorromeanRangeInternal::ProveUnchecked(t, v, r, bits, &randomness).Encode();
  };
  // Deterministic given the randomness: the same statement gives the same proof.
  const Bytes p8 = prove(8), p10 = prove(10);
  EXPECT_EQ(p8, prove(8));
  ASSERT_TRUE(VerifiesBytes(p8, CommitTo(v, r), 8));
  ASSERT_TRUE(VerifiesBytes(p10, CommitTo(v, r), 10));
  // The digit commitments C_i = d_i 4^i G + r_i H of the digits both proofs have (equal digits,
  // so equal blindings r_i would show as equal C_i).
  const std::ptrdiff_t digits8 = 3;  // C_0 .. C_2 for 8 bits
  for (std::ptrdiff_t i = 0; i < digits8; ++i) {
    const auto at = [i](const Bytes& p) {
      return Bytes(p.begin() + 34 + 32 * i, p.begin() + 66 + 32 * i);
    };
    EXPECT_NE(at(p8), at(p10)) << "digit commitment " << i;
  }
}

TEST(BorromeanRangeTest, ProofsOfTheSameValueDiffer) {
  const ec::Scalar r = ec::Scalar::Random();
  Transcript t1 = Context(), t2 = Context();
  auto a = BorromeanRangeProof::Prove(t1, 77, r, 8);
  auto b = BorromeanRangeProof::Prove(t2, 77, r, 8);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->Encode(), b->Encode());  // fresh randomness in the nonces
}

}  // namespace
}  // namespace veil::zk
