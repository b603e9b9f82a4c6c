// One-of-many proofs: the parameter choice and size formula; completeness for set sizes 1, 2, 3,
// 8, 64, 100, 128 at every index (up to 64 members) or at the first, last and a middle index
// (100, 128), every base from 2 to 16, padding with repeated members;
// soundness against every single-bit change of a proof over 8 members and one random bit per byte
// over 64, a wrong opening, a member that does not open to zero, a changed, reordered or
// differently parameterised set and another context; strict decoding; batch verification; and
// the asset-membership use (C - A_i opens to zero for the committed asset).
#include "veil/zk/one_of_many.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "veil/zk/pedersen.h"
#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::FlipBit;
using test::H;
using test::Hx;
using test::TestRng;

Transcript Context(std::string_view session = "session-1") {
  Transcript t("veil.test.one-of-many", 1);
  t.AppendMessage("session", AsBytes(session));
  return t;
}

const ec::RistrettoPoint& Hgen() { return PedersenGens::Default().H(); }

// N random members with member l = r H.
struct Instance {
  std::vector<ec::RistrettoPoint> members;
  std::size_t l = 0;
  ec::Scalar r;
};

Instance MakeInstance(TestRng& rng, std::size_t N, std::size_t l) {
  Instance in;
  for (std::size_t k = 0; k < N; ++k) in.members.push_back(rng.Point());
  in.l = l;
  in.r = rng.Scalar();
  in.members[l] = in.r * Hgen();
  return in;
}

OneOfManySet MakeSet(const std::vector<ec::RistrettoPoint>& members, std::size_t base = 0) {
  auto set = OneOfManySet::FromPoints(members, base);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return std::move(set).value();
}

OneOfManyProof Prove(const OneOfManySet& set, std::size_t l, const ec::Scalar& r,
                     std::string_view session = "session-1") {
  Transcript t = Context(session);
  auto proof = OneOfManyProve(t, set, l, r);
  EXPECT_TRUE(proof.ok()) << proof.status().ToString();
  return std::move(proof).value();
}

Status Verify(const OneOfManySet& set, const OneOfManyProof& proof,
              std::string_view session = "session-1") {
  Transcript t = Context(session);
  return OneOfManyVerify(t, set, proof);
}

// Proves at l, checks the size, the round trip through the encoding and verification, and that
// both transcripts end in the same state.
void ExpectComplete(const OneOfManySet& set, std::size_t l, const ec::Scalar& r) {
  Transcript pt = Context();
  auto proof = OneOfManyProve(pt, set, l, r);
  ASSERT_TRUE(proof.ok());
  const Bytes enc = proof->Encode();
  EXPECT_EQ(enc.size(), set.params().ProofSize());
  auto decoded = OneOfManyProof::Decode(enc, set.params());
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(Hx(decoded->Encode()), Hx(enc));
  Transcript vt = Context();
  EXPECT_TRUE(OneOfManyVerify(vt, set, *decoded).ok()) << "N " << set.size() << " l " << l;
  EXPECT_TRUE(pt.ChallengeScalar("next") == vt.ChallengeScalar("next"));
}

TEST(OneOfMany, ParametersAndSizes) {
  // The documented choices (docs/notes/one_of_many.md, "Choosing n").
  const struct {
    std::size_t N, n, m, bytes;
  } kChoices[] = {{1, 2, 1, 288},   {2, 2, 1, 288},    {3, 3, 1, 320},   {8, 3, 2, 416},
                  {64, 4, 3, 608},  {100, 5, 3, 704},  {128, 6, 3, 800}, {256, 4, 4, 736},
                  {512, 5, 4, 864}, {4096, 6, 5, 1184}};
  for (const auto& c : kChoices) {
    auto p = OneOfManyParams::Default(c.N);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->n, c.n) << c.N;
    EXPECT_EQ(p->m, c.m) << c.N;
    EXPECT_EQ(p->ProofSize(), c.bytes) << c.N;
    EXPECT_EQ(p->ProofSize(), 32 * (p->m * p->n + 7));
    EXPECT_GE(p->PaddedSize(), c.N);
  }
  // Targets: N = 64 at most 900 bytes, N = 128 at most 1,000.
  EXPECT_LE(OneOfManyParams::Default(64)->ProofSize(), 900u);
  EXPECT_LE(OneOfManyParams::Default(128)->ProofSize(), 1000u);

  auto p = OneOfManyParams::Create(100, 4);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->m, 4u);
  EXPECT_EQ(p->PaddedSize(), 256u);
  EXPECT_EQ(OneOfManyParams::Create(64, 4)->m, 3u);
  EXPECT_EQ(OneOfManyParams::Create(65, 4)->m, 4u);
  EXPECT_EQ(OneOfManyParams::Create(1, 16)->m, 1u);
  EXPECT_EQ(OneOfManyParams::Create(0, 4).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyParams::Create(4097, 4).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyParams::Create(8, 1).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyParams::Create(8, 17).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyParams::Default(0).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(OneOfManyParams::Default(4096).ok());
}

TEST(OneOfMany, CompletenessEveryIndexSmallSets) {
  TestRng rng(1);
  for (std::size_t N : std::initializer_list<std::size_t>{1, 2, 3, 8}) {
    for (std::size_t l = 0; l < N; ++l) {
      const Instance in = MakeInstance(rng, N, l);
      ExpectComplete(MakeSet(in.members), l, in.r);
    }
  }
  // Every base from 2 to 16 over a set that is not a power of any of them.
  for (std::size_t n = 2; n <= 16; ++n) {
    const Instance in = MakeInstance(rng, 7, n % 7);
    ExpectComplete(MakeSet(in.members, n), in.l, in.r);
  }
}

TEST(OneOfMany, CompletenessLargeSets) {
  TestRng rng(2);
  for (std::size_t N : std::initializer_list<std::size_t>{64, 100, 128}) {
    Instance in = MakeInstance(rng, N, 0);
    // First, last, and an index in the last digit's partial block; one set, the zero-opening
    // member moved around.
    for (std::size_t l : {std::size_t{0}, N - 1, N / 2 + 1}) {
      std::swap(in.members[in.l], in.members[l]);
      in.l = l;
      ExpectComplete(MakeSet(in.members), l, in.r);
    }
  }
}

TEST(OneOfMany, CompletenessEveryIndexN64) {
  // The asset-membership size, every position (three base-4 digits, no padding).
  TestRng rng(12);
  Instance in = MakeInstance(rng, 64, 0);
  for (std::size_t l = 0; l < 64; ++l) {
    std::swap(in.members[in.l], in.members[l]);
    in.l = l;
    const OneOfManySet set = MakeSet(in.members);
    EXPECT_TRUE(Verify(set, Prove(set, l, in.r)).ok()) << l;
  }
}

TEST(OneOfMany, PaddingWithRepeatedMembers) {
  // 5 members in base 2 (padded to 8 by repeating member 4), the opening at every index,
  // including the repeated one.
  TestRng rng(3);
  for (std::size_t l = 0; l < 5; ++l) {
    const Instance in = MakeInstance(rng, 5, l);
    const OneOfManySet set = MakeSet(in.members, 2);
    EXPECT_EQ(set.params().PaddedSize(), 8u);
    ExpectComplete(set, l, in.r);
  }
  // A set whose members all open to zero, and one with duplicates.
  const ec::Scalar r = rng.Scalar();
  std::vector<ec::RistrettoPoint> same(6, r * Hgen());
  ExpectComplete(MakeSet(same), 3, r);
}

TEST(OneOfMany, AssetMembership) {
  // A committed asset C = A_i + s H and 64 public assets A_k: C - A_k opens to zero at k = i.
  TestRng rng(4);
  std::vector<ec::RistrettoPoint> assets;
  for (int k = 0; k < 64; ++k) assets.push_back(rng.Point());
  const std::size_t i = 37;
  const ec::Scalar s = rng.Scalar();
  const ec::RistrettoPoint C = assets[i] + s * Hgen();
  std::vector<ec::RistrettoPoint> diffs;
  for (const auto& a : assets) diffs.push_back(C - a);
  const OneOfManySet set = MakeSet(diffs);
  const OneOfManyProof proof = Prove(set, i, s);
  EXPECT_EQ(proof.Encode().size(), 608u);
  EXPECT_TRUE(Verify(set, proof).ok());
  // Claiming another asset fails.
  EXPECT_EQ(Verify(set, Prove(set, i + 1, s)), VerificationFailed());
}

TEST(OneOfMany, Soundness) {
  TestRng rng(5);
  const Instance in = MakeInstance(rng, 64, 17);
  const OneOfManySet set = MakeSet(in.members);
  const OneOfManyProof proof = Prove(set, in.l, in.r);
  ASSERT_TRUE(Verify(set, proof).ok());

  // A wrong opening, and a member that does not open to zero: no accepting proof.
  EXPECT_EQ(Verify(set, Prove(set, in.l, in.r + ec::Scalar::One())), VerificationFailed());
  EXPECT_EQ(Verify(set, Prove(set, in.l + 1, in.r)), VerificationFailed());
  EXPECT_EQ(Verify(set, Prove(set, 0, rng.Scalar())), VerificationFailed());

  // Another context.
  EXPECT_EQ(Verify(set, proof, "session-2"), VerificationFailed());

  // Another set: one other member changed; two other members swapped; the zero-opening member
  // moved (the proof binds its position).
  std::vector<ec::RistrettoPoint> changed = in.members;
  changed[3] = rng.Point();
  EXPECT_EQ(Verify(MakeSet(changed), proof), VerificationFailed());
  std::vector<ec::RistrettoPoint> swapped = in.members;
  std::swap(swapped[3], swapped[40]);
  EXPECT_EQ(Verify(MakeSet(swapped), proof), VerificationFailed());
  std::vector<ec::RistrettoPoint> moved = in.members;
  std::swap(moved[17], moved[18]);
  EXPECT_EQ(Verify(MakeSet(moved), proof), VerificationFailed());
  // A set with one member fewer has other parameters: kInvalidArgument, not a verdict.
  std::vector<ec::RistrettoPoint> shorter(in.members.begin(), in.members.end() - 1);
  const OneOfManySet short_set = MakeSet(shorter, 4);
  EXPECT_EQ(short_set.params().m, 3u);
  EXPECT_EQ(Verify(short_set, proof).code(), Code::kInvalidArgument);
  // The same members under another base: the parameters differ.
  EXPECT_EQ(Verify(MakeSet(in.members, 2), proof).code(), Code::kInvalidArgument);

  // l out of range.
  Transcript t = Context();
  EXPECT_EQ(OneOfManyProve(t, set, 64, in.r).status().code(), Code::kInvalidArgument);
  Transcript t2 = Context();
  EXPECT_EQ(OneOfManyProve(t2, set, ~std::size_t{0}, in.r).status().code(), Code::kInvalidArgument);
}

// Every single-bit change of `enc` is rejected by Decode (kInvalidArgument) or by verification.
void ExpectBitFlipsRejected(const OneOfManySet& set, const Bytes& enc,
                            const std::vector<std::size_t>& bits) {
  std::size_t decoded = 0;
  for (std::size_t bit : bits) {
    const Bytes bad = FlipBit(enc, bit);
    auto proof = OneOfManyProof::Decode(bad, set.params());
    if (!proof.ok()) {
      EXPECT_EQ(proof.status().code(), Code::kInvalidArgument);
      continue;
    }
    ++decoded;
    EXPECT_EQ(Verify(set, *proof), VerificationFailed()) << "bit " << bit;
  }
  EXPECT_GT(decoded, bits.size() / 2);  // most flips reach the verification equation
}

TEST(OneOfMany, EveryBitFlipRejectedN8) {
  TestRng rng(6);
  const Instance in = MakeInstance(rng, 8, 5);
  const OneOfManySet set = MakeSet(in.members);
  const Bytes enc = Prove(set, in.l, in.r).Encode();
  std::vector<std::size_t> bits(8 * enc.size());
  for (std::size_t b = 0; b < bits.size(); ++b) bits[b] = b;
  ExpectBitFlipsRejected(set, enc, bits);
}

TEST(OneOfMany, SampledBitFlipsRejectedN64) {
  TestRng rng(7);
  const Instance in = MakeInstance(rng, 64, 63);
  const OneOfManySet set = MakeSet(in.members);
  const Bytes enc = Prove(set, in.l, in.r).Encode();
  // One random bit in every byte.
  std::vector<std::size_t> bits;
  for (std::size_t byte = 0; byte < enc.size(); ++byte) {
    bits.push_back(8 * byte + (rng.Bytes32()[0] & 7));
  }
  ExpectBitFlipsRejected(set, enc, bits);
}

TEST(OneOfMany, StrictDecoding) {
  TestRng rng(8);
  const Instance in = MakeInstance(rng, 8, 2);
  const OneOfManySet set = MakeSet(in.members);
  const OneOfManyParams& p = set.params();
  const Bytes enc = Prove(set, in.l, in.r).Encode();
  ASSERT_TRUE(OneOfManyProof::Decode(enc, p).ok());

  Bytes longer = enc;
  longer.push_back(0);
  EXPECT_EQ(OneOfManyProof::Decode(longer, p).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyProof::Decode(ByteView(enc).first(enc.size() - 1), p).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyProof::Decode({}, p).status().code(), Code::kInvalidArgument);
  // Parameters that Create would not give.
  OneOfManyParams bad = p;
  bad.m += 1;
  EXPECT_EQ(OneOfManyProof::Decode(Bytes(bad.ProofSize(), 0), bad).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(OneOfManyProof::Decode(enc, OneOfManyParams{}).status().code(), Code::kInvalidArgument);

  // A non-canonical point (the field element p) in each point slot.
  const Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  for (std::size_t slot = 0; slot < p.m + 4; ++slot) {
    Bytes bad_point = enc;
    std::copy(p_bytes.begin(), p_bytes.end(),
              bad_point.begin() + static_cast<std::ptrdiff_t>(32 * slot));
    EXPECT_EQ(OneOfManyProof::Decode(bad_point, p).status().code(), Code::kInvalidArgument);
  }
  // A scalar >= l in each scalar slot.
  for (std::size_t slot = p.m + 4; slot < enc.size() / 32; ++slot) {
    Bytes big = enc;
    std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(),
              big.begin() + static_cast<std::ptrdiff_t>(32 * slot));
    EXPECT_EQ(OneOfManyProof::Decode(big, p).status().code(), Code::kInvalidArgument);
  }
  // All zeros decodes (identity points, zero scalars) and does not verify.
  auto zeros = OneOfManyProof::Decode(Bytes(enc.size(), 0), p);
  ASSERT_TRUE(zeros.ok());
  EXPECT_EQ(Verify(set, *zeros), VerificationFailed());
}

TEST(OneOfMany, Sets) {
  TestRng rng(9);
  const Instance in = MakeInstance(rng, 10, 4);
  const OneOfManySet a = MakeSet(in.members);
  auto b = OneOfManySet::Decode(a.encodings());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Hx(a.digest()), Hx(b->digest()));
  EXPECT_TRUE(b->params() == a.params());
  // A proof made with one verifies with the other.
  EXPECT_TRUE(Verify(*b, Prove(a, in.l, in.r)).ok());
  // The digest depends on the order.
  std::vector<ec::CompressedRistretto> reordered = a.encodings();
  std::swap(reordered[0], reordered[1]);
  EXPECT_NE(Hx(OneOfManySet::Decode(reordered)->digest()), Hx(a.digest()));

  EXPECT_EQ(OneOfManySet::FromPoints({}).status().code(), Code::kInvalidArgument);
  std::vector<ec::RistrettoPoint> too_many(OneOfManyParams::kMaxSize + 1);
  EXPECT_EQ(OneOfManySet::FromPoints(too_many).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManySet::FromPoints(in.members, 1).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OneOfManySet::FromPoints(in.members, 17).status().code(), Code::kInvalidArgument);
  std::vector<ec::CompressedRistretto> bad = a.encodings();
  ec::CompressedRistretto::Bytes non_canonical{};
  const Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  std::copy(p_bytes.begin(), p_bytes.end(), non_canonical.begin());
  bad[5] = ec::CompressedRistretto(non_canonical);
  EXPECT_EQ(OneOfManySet::Decode(bad).status().code(), Code::kInvalidArgument);
}

TEST(OneOfMany, ProofsAreRandomised) {
  TestRng rng(10);
  const Instance in = MakeInstance(rng, 8, 1);
  const OneOfManySet set = MakeSet(in.members);
  EXPECT_NE(Hx(Prove(set, in.l, in.r).Encode()), Hx(Prove(set, in.l, in.r).Encode()));
}

TEST(OneOfMany, BatchVerification) {
  TestRng rng(11);
  // 6 proofs over one set of 64 (members merged in the batch) and 2 over other sets.
  const Instance shared = MakeInstance(rng, 64, 0);
  std::vector<std::pair<OneOfManySet, OneOfManyProof>> items;
  const OneOfManySet shared_set = MakeSet(shared.members);
  for (int i = 0; i < 6; ++i) items.emplace_back(shared_set, Prove(shared_set, 0, shared.r));
  for (std::size_t N : std::initializer_list<std::size_t>{3, 8}) {
    const Instance in = MakeInstance(rng, N, N - 1);
    const OneOfManySet set = MakeSet(in.members);
    items.emplace_back(set, Prove(set, in.l, in.r));
  }
  OneOfManyBatchVerifier good;
  for (const auto& [set, proof] : items) {
    Transcript t = Context();
    ASSERT_TRUE(good.Add(t, set, proof).ok());
  }
  EXPECT_EQ(good.size(), items.size());
  EXPECT_TRUE(good.Verify().ok());

  // One bad proof (a wrong opening) anywhere spoils the batch.
  for (std::size_t bad_at : {std::size_t{0}, items.size() - 1}) {
    OneOfManyBatchVerifier batch;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& [set, proof] = items[i];
      Transcript t = Context();
      if (i == bad_at) {
        const OneOfManyProof wrong = Prove(set, i == 0 ? 0 : set.size() - 1, rng.Scalar());
        ASSERT_TRUE(batch.Add(t, set, wrong).ok());
      } else {
        ASSERT_TRUE(batch.Add(t, set, proof).ok());
      }
    }
    EXPECT_EQ(batch.Verify(), VerificationFailed());
  }
  // A proof in another context.
  OneOfManyBatchVerifier other;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Transcript t = Context(i == 3 ? "session-2" : "session-1");
    ASSERT_TRUE(other.Add(t, items[i].first, items[i].second).ok());
  }
  EXPECT_EQ(other.Verify(), VerificationFailed());

  EXPECT_TRUE(OneOfManyBatchVerifier().Verify().ok());
  // A parameter mismatch poisons the batch.
  OneOfManyBatchVerifier poisoned;
  Transcript t = Context();
  EXPECT_EQ(poisoned.Add(t, MakeSet(shared.members, 2), items[0].second).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(poisoned.Verify().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace veil::zk
