// Sigma protocols: completeness on random instances of every concrete protocol and of a general
// relation with shared witnesses; soundness against every single-bit change of an encoded proof,
// wrong statements, wrong witnesses, other contexts and swapped generators; strict decoding;
// batch verification (all good, one bad among many, mixed relations); relation validation; and a
// known-answer test checked against libsodium's group arithmetic.
#include "veil/zk/sigma.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::FlipBit;
using test::H;
using test::Hx;
using test::TestRng;

Transcript Context(std::string_view session = "session-1") {
  Transcript t("veil.test.sigma", 1);
  t.AppendMessage("session", AsBytes(session));
  return t;
}

// A relation with three equations and shared witnesses (a Pedersen commitment to x under
// generators G1, G2, a public key under B with the same x, and a second commitment sharing r):
//   C1 = x G1 + r G2,  P = x B,  C2 = y G1 + r G3.
struct General {
  ec::RistrettoPoint g1, g2, g3, c1, p, c2;
  ec::Scalar x, r, y;
  LinearRelation Relation() const {
    LinearRelation rel("veil.test.general");
    const ScalarVar vx = rel.AddScalar(), vr = rel.AddScalar(), vy = rel.AddScalar();
    const PointVar pg1 = rel.AddPoint(g1), pg2 = rel.AddPoint(ec::FixedBaseTable(g2));
    const PointVar pg3 = rel.AddPoint(g3), pb = rel.AddBasepoint();
    const PointVar pc1 = rel.AddPoint(c1), pp = rel.AddPoint(p), pc2 = rel.AddPoint(c2);
    rel.AddEquation(pc1, {{vx, pg1}, {vr, pg2}});
    rel.AddEquation(pp, {{vx, pb}});
    rel.AddEquation(pc2, {{vy, pg1}, {vr, pg3}});
    return rel;
  }
  std::array<ec::Scalar, 3> Witness() const { return {x, r, y}; }
};

General MakeGeneral(TestRng& rng) {
  General g;
  g.g1 = rng.Point();
  g.g2 = rng.Point();
  g.g3 = rng.Point();
  g.x = rng.Scalar();
  g.r = rng.Scalar();
  g.y = rng.Scalar();
  g.c1 = g.x * g.g1 + g.r * g.g2;
  g.p = ec::BasepointMul(g.x);
  g.c2 = g.y * g.g1 + g.r * g.g3;
  return g;
}

// Every single-bit change of `encoded` is rejected: by Decode, or by `verify`.
void ExpectEveryBitFlipRejected(
    const Bytes& encoded, const LinearRelation& rel,
    const std::function<Status(Transcript&, const SigmaProof&)>& verify) {
  for (std::size_t bit = 0; bit < 8 * encoded.size(); ++bit) {
    const Bytes bad = FlipBit(encoded, bit);
    auto proof = SigmaProof::Decode(bad, rel);
    if (!proof.ok()) {
      EXPECT_EQ(proof.status().code(), Code::kInvalidArgument);
      continue;
    }
    Transcript t = Context();
    EXPECT_EQ(verify(t, *proof), VerificationFailed()) << "bit " << bit;
  }
}

TEST(Sigma, DlogCompletenessAndSoundness) {
  TestRng rng(10);
  for (int i = 0; i < 16; ++i) {
    const ec::Scalar x = rng.Scalar();
    const ec::RistrettoPoint P = ec::BasepointMul(x);
    Transcript pt = Context();
    const SigmaProof proof = ProveDlog(pt, x, P);
    const Bytes enc = proof.Encode();
    ASSERT_EQ(enc.size(), kDlogProofSize);
    auto decoded = SigmaProof::Decode(enc, DlogRelation(P));
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(Hx(decoded->Encode()), Hx(enc));
    Transcript vt = Context();
    EXPECT_TRUE(VerifyDlog(vt, P, *decoded).ok());
    // Prover and verifier transcripts end in the same state.
    EXPECT_TRUE(pt.ChallengeScalar("next") == vt.ChallengeScalar("next"));

    // Wrong statement, other context, wrong witness.
    Transcript t1 = Context();
    EXPECT_EQ(VerifyDlog(t1, P + ec::RistrettoPoint::Generator(), proof), VerificationFailed());
    Transcript t2 = Context("session-2");
    EXPECT_EQ(VerifyDlog(t2, P, proof), VerificationFailed());
    Transcript t3 = Context();
    const SigmaProof wrong = ProveDlog(t3, x + ec::Scalar::One(), P);
    Transcript t4 = Context();
    EXPECT_EQ(VerifyDlog(t4, P, wrong), VerificationFailed());
    if (i < 2) {
      ExpectEveryBitFlipRejected(enc, DlogRelation(P), [&](Transcript& t, const SigmaProof& p) {
        return VerifyDlog(t, P, p);
      });
    }
  }
}

TEST(Sigma, DleqCompletenessAndSoundness) {
  TestRng rng(11);
  for (int i = 0; i < 16; ++i) {
    const ec::Scalar x = rng.Scalar();
    const ec::RistrettoPoint G = rng.Point(), Hp = rng.Point();
    const ec::RistrettoPoint P = x * G, Q = x * Hp;
    Transcript pt = Context();
    const SigmaProof proof = ProveDleq(pt, x, G, P, Hp, Q);
    const Bytes enc = proof.Encode();
    ASSERT_EQ(enc.size(), kDleqProofSize);
    Transcript vt = Context();
    EXPECT_TRUE(VerifyDleq(vt, G, P, Hp, Q, proof).ok());

    // Swapped generators, swapped roles, a Q with a different log.
    Transcript t1 = Context();
    EXPECT_EQ(VerifyDleq(t1, Hp, P, G, Q, proof), VerificationFailed());
    Transcript t2 = Context();
    EXPECT_EQ(VerifyDleq(t2, Hp, Q, G, P, proof), VerificationFailed());
    const ec::RistrettoPoint q_bad = (x + ec::Scalar::One()) * Hp;
    Transcript t3 = Context();
    const SigmaProof unequal = ProveDleq(t3, x, G, P, Hp, q_bad);
    Transcript t4 = Context();
    EXPECT_EQ(VerifyDleq(t4, G, P, Hp, q_bad, unequal), VerificationFailed());
    // A DLEQ proof is not a DL proof of P, even with the right sizes elsewhere.
    Transcript t5 = Context();
    EXPECT_EQ(VerifyDlog(t5, P, proof).code(), Code::kInvalidArgument);
    if (i < 2) {
      ExpectEveryBitFlipRejected(
          enc, DleqRelation(G, P, Hp, Q),
          [&](Transcript& t, const SigmaProof& p) { return VerifyDleq(t, G, P, Hp, Q, p); });
    }
  }
}

TEST(Sigma, OpeningCompletenessAndSoundness) {
  const PedersenGens& gens = PedersenGens::Default();
  TestRng rng(12);
  for (int i = 0; i < 16; ++i) {
    const ec::Scalar v = rng.Scalar(), r = rng.Scalar();
    const Commitment C = gens.Commit(v, r);
    Transcript pt = Context();
    const SigmaProof proof = ProveOpening(pt, gens, v, r, C);
    const Bytes enc = proof.Encode();
    ASSERT_EQ(enc.size(), kOpeningProofSize);
    Transcript vt = Context();
    EXPECT_TRUE(VerifyOpening(vt, gens, C, proof).ok());
    Transcript t1 = Context();
    EXPECT_EQ(
        VerifyOpening(t1, gens, C + gens.Commit(ec::Scalar::One(), ec::Scalar::Zero()), proof),
        VerificationFailed());
    Transcript t2 = Context();
    const SigmaProof wrong = ProveOpening(t2, gens, r, v, C);  // swapped witness
    Transcript t3 = Context();
    EXPECT_EQ(VerifyOpening(t3, gens, C, wrong), VerificationFailed());
    if (i < 2) {
      ExpectEveryBitFlipRejected(
          enc, OpeningRelation(gens, C),
          [&](Transcript& t, const SigmaProof& p) { return VerifyOpening(t, gens, C, p); });
    }
  }
}

TEST(Sigma, GeneralRelationWithSharedWitnesses) {
  TestRng rng(13);
  for (int i = 0; i < 8; ++i) {
    const General g = MakeGeneral(rng);
    const LinearRelation rel = g.Relation();
    ASSERT_TRUE(rel.Validate().ok());
    Transcript pt = Context();
    auto proof = Prove(pt, rel, g.Witness());
    ASSERT_TRUE(proof.ok());
    const Bytes enc = proof->Encode();
    ASSERT_EQ(enc.size(), rel.ProofSize());
    ASSERT_EQ(enc.size(), 32u * 6);
    Transcript vt = Context();
    EXPECT_TRUE(Verify(vt, rel, *proof).ok());

    // A witness wrong in one place only (y) still fails.
    auto w = g.Witness();
    w[2] += ec::Scalar::One();
    Transcript t1 = Context();
    auto bad = Prove(t1, rel, w);
    ASSERT_TRUE(bad.ok());
    Transcript t2 = Context();
    EXPECT_EQ(Verify(t2, rel, *bad), VerificationFailed());

    // The same points under a different shape (equations reordered) do not accept the proof.
    LinearRelation other("veil.test.general");
    {
      const ScalarVar vx = other.AddScalar(), vr = other.AddScalar(), vy = other.AddScalar();
      const PointVar pg1 = other.AddPoint(g.g1), pg2 = other.AddPoint(g.g2);
      const PointVar pg3 = other.AddPoint(g.g3), pb = other.AddBasepoint();
      const PointVar pc1 = other.AddPoint(g.c1), pp = other.AddPoint(g.p),
                     pc2 = other.AddPoint(g.c2);
      other.AddEquation(pp, {{vx, pb}});
      other.AddEquation(pc1, {{vx, pg1}, {vr, pg2}});
      other.AddEquation(pc2, {{vy, pg1}, {vr, pg3}});
    }
    Transcript t3 = Context();
    EXPECT_EQ(Verify(t3, other, *proof), VerificationFailed());
    if (i == 0) {
      ExpectEveryBitFlipRejected(
          enc, rel, [&](Transcript& t, const SigmaProof& p) { return Verify(t, rel, p); });
    }
  }
}

TEST(Sigma, RelationValidation) {
  TestRng rng(14);
  const ec::Scalar x = rng.Scalar();
  LinearRelation empty("veil.test");
  EXPECT_EQ(empty.Validate().code(), Code::kInvalidArgument);
  Transcript t = Context();
  EXPECT_EQ(Prove(t, empty, std::span<const ec::Scalar>(&x, 1)).status().code(),
            Code::kInvalidArgument);

  LinearRelation unused("veil.test");
  const ScalarVar a = unused.AddScalar();
  (void)unused.AddScalar();
  const PointVar b = unused.AddBasepoint(), p = unused.AddPoint(ec::BasepointMul(x));
  unused.AddEquation(p, {{a, b}});
  EXPECT_EQ(unused.Validate().code(), Code::kInvalidArgument);

  LinearRelation no_term("veil.test");
  const ScalarVar s = no_term.AddScalar();
  const PointVar q = no_term.AddPoint(ec::BasepointMul(x)), g = no_term.AddBasepoint();
  no_term.AddEquation(q, {{s, g}});
  no_term.AddEquation(q, {});
  EXPECT_EQ(no_term.Validate().code(), Code::kInvalidArgument);

  // Witness count.
  const LinearRelation dl = DlogRelation(ec::BasepointMul(x));
  std::array<ec::Scalar, 2> two = {x, x};
  EXPECT_EQ(Prove(t, dl, two).status().code(), Code::kInvalidArgument);
  // Encodings that do not decode.
  LinearRelation enc_rel("veil.test");
  EXPECT_EQ(enc_rel.AddPointEncoding(ec::CompressedRistretto(ec::CompressedRistretto::Bytes{1}))
                .status()
                .code(),
            Code::kInvalidArgument);
  EXPECT_TRUE(enc_rel.AddPointEncoding(ec::RistrettoPoint::Generator().Encode()).ok());
}

TEST(Sigma, StrictDecoding) {
  TestRng rng(15);
  const ec::Scalar x = rng.Scalar();
  const ec::RistrettoPoint P = ec::BasepointMul(x);
  Transcript t = Context();
  const Bytes enc = ProveDlog(t, x, P).Encode();
  const LinearRelation rel = DlogRelation(P);
  EXPECT_TRUE(SigmaProof::Decode(enc, rel).ok());
  Bytes longer = enc;
  longer.push_back(0);
  EXPECT_EQ(SigmaProof::Decode(longer, rel).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SigmaProof::Decode(ByteView(enc).first(63), rel).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(SigmaProof::Decode({}, rel).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(SigmaProof::Decode(enc, 100000, 1).status().code(), Code::kInvalidArgument);

  // s + l: the same residue, not canonical.
  Bytes non_canonical = enc;
  const ec::Scalar s = *ec::Scalar::FromCanonical(ByteView(enc).subspan(32));
  unsigned carry = 0;
  const auto sb = s.ToBytes();
  for (std::size_t i = 0; i < 32; ++i) {
    const unsigned sum = sb[i] + ec::kGroupOrderBytes[i] + carry;
    non_canonical[32 + i] = static_cast<std::uint8_t>(sum);
    carry = sum >> 8;
  }
  if (carry == 0) {  // s + l < 2^256 (almost always)
    EXPECT_EQ(SigmaProof::Decode(non_canonical, rel).status().code(), Code::kInvalidArgument);
  }
  // A non-canonical point (the field element p) in the commitment slot.
  Bytes bad_point = enc;
  const Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  std::copy(p_bytes.begin(), p_bytes.end(), bad_point.begin());
  EXPECT_EQ(SigmaProof::Decode(bad_point, rel).status().code(), Code::kInvalidArgument);
  // A proof of the wrong shape is kInvalidArgument at verification.
  auto dleq_shaped = SigmaProof::Decode(Bytes(96, 0), 2, 1);
  ASSERT_TRUE(dleq_shaped.ok());  // the identity and zero are valid encodings
  Transcript vt = Context();
  EXPECT_EQ(Verify(vt, rel, *dleq_shaped).code(), Code::kInvalidArgument);
}

TEST(Sigma, BatchVerification) {
  const PedersenGens& gens = PedersenGens::Default();
  TestRng rng(16);
  struct Item {
    LinearRelation rel;
    SigmaProof proof;
    std::string session;
  };
  std::vector<Item> items;
  for (int i = 0; i < 48; ++i) {
    const std::string session = "s" + std::to_string(i);
    Transcript t = Context(session);
    switch (i % 4) {
      case 0: {
        const ec::Scalar x = rng.Scalar();
        const ec::RistrettoPoint P = ec::BasepointMul(x);
        items.push_back({DlogRelation(P), ProveDlog(t, x, P), session});
        break;
      }
      case 1: {
        const ec::Scalar x = rng.Scalar();
        const ec::RistrettoPoint G = rng.Point(), Hp = rng.Point();
        items.push_back(
            {DleqRelation(G, x * G, Hp, x * Hp), ProveDleq(t, x, G, x * G, Hp, x * Hp), session});
        break;
      }
      case 2: {
        const ec::Scalar v = rng.Scalar(), r = rng.Scalar();
        const Commitment C = gens.Commit(v, r);
        items.push_back({OpeningRelation(gens, C), ProveOpening(t, gens, v, r, C), session});
        break;
      }
      default: {
        const General g = MakeGeneral(rng);
        LinearRelation rel = g.Relation();
        auto proof = Prove(t, rel, g.Witness());
        items.push_back({std::move(rel), *proof, session});
      }
    }
  }
  auto run = [&](std::size_t bad_index, const std::string& bad_session) {
    SigmaBatchVerifier batch;
    for (std::size_t i = 0; i < items.size(); ++i) {
      Transcript t = Context(i == bad_index ? bad_session : items[i].session);
      EXPECT_TRUE(batch.Add(t, items[i].rel, items[i].proof).ok());
    }
    EXPECT_EQ(batch.size(), items.size());
    return batch.Verify();
  };
  EXPECT_TRUE(run(items.size(), "").ok());
  // One proof checked in the wrong context (its challenge changes): the batch fails, wherever it
  // is and whatever relation it has.
  for (std::size_t bad : {0u, 1u, 2u, 3u, 25u, 47u}) {
    EXPECT_EQ(run(bad, "other"), VerificationFailed()) << bad;
  }
  // One proof made with a wrong witness.
  {
    const ec::Scalar x = rng.Scalar();
    const ec::RistrettoPoint P = ec::BasepointMul(x);
    Transcript t = Context("bad");
    items.push_back({DlogRelation(P), ProveDlog(t, x + ec::Scalar::One(), P), "bad"});
    EXPECT_EQ(run(items.size(), ""), VerificationFailed());
    items.pop_back();
  }
  // Empty batch; a wrong-shape proof poisons the batch.
  EXPECT_TRUE(SigmaBatchVerifier().Verify().ok());
  SigmaBatchVerifier poisoned;
  Transcript t1 = Context(items[0].session);
  EXPECT_TRUE(poisoned.Add(t1, items[0].rel, items[0].proof).ok());
  Transcript t2 = Context(items[1].session);
  EXPECT_EQ(poisoned.Add(t2, items[0].rel, items[1].proof).code(), Code::kInvalidArgument);
  EXPECT_EQ(poisoned.Verify().code(), Code::kInvalidArgument);
  // Agreement with single verification on each item.
  for (const auto& item : items) {
    Transcript t = Context(item.session);
    EXPECT_TRUE(Verify(t, item.rel, item.proof).ok());
  }
}

// A known-answer test: fixed witness, fixed nonce randomness. The frozen bytes pin the encoding;
// the check by libsodium pins the group arithmetic: s B = A + c P with c recomputed here from the
// documented transcript frames.
TEST(Sigma, DlogKnownAnswer) {
  ASSERT_GE(sodium_init(), 0);
  TestRng rng(17);
  const ec::Scalar x = rng.Scalar();
  const ec::RistrettoPoint P = ec::BasepointMul(x);
  const auto randomness = rng.Bytes32();
  Transcript t("veil.test.kat", 1);
  const LinearRelation rel = DlogRelation(P);
  auto proof = ProveWithRandomness(t, rel, std::span<const ec::Scalar>(&x, 1), randomness);
  ASSERT_TRUE(proof.ok());
  const Bytes enc = proof->Encode();
  EXPECT_EQ(Hx(enc),
            "a2155e7cc3e3ca688bbddfc69904ba51a9940e24cc5dbae5475e3af31e0d6912"
            "fda3848a5fcbd4c58868d9bb336c39e66d96f73ce0af918725db33a8908c280e");

  // The challenge by the documented frames.
  Transcript c_t("veil.test.kat", 1);
  c_t.AppendMessage("sigma.relation", AsBytes("veil.zk.dlog"));
  const Bytes shape =
      H("000000010000000200000001000000010000000100000000"
        "00000000");
  c_t.AppendMessage("sigma.shape", shape);
  c_t.AppendPoint("sigma.P", ec::RistrettoPoint::Generator());
  c_t.AppendPoint("sigma.P", P);
  c_t.AppendPoint("sigma.A", proof->commitments()[0]);
  const auto c = c_t.ChallengeScalar("sigma.c").ToBytes();
  const auto s = proof->responses()[0].ToBytes();
  const auto p_enc = P.Encode().bytes();
  std::array<std::uint8_t, 32> sb{}, cp{}, rhs{};
  ASSERT_EQ(crypto_scalarmult_ristretto255_base(sb.data(), s.data()), 0);
  ASSERT_EQ(crypto_scalarmult_ristretto255(cp.data(), c.data(), p_enc.data()), 0);
  ASSERT_EQ(
      crypto_core_ristretto255_add(rhs.data(), proof->commitments()[0].bytes().data(), cp.data()),
      0);
  EXPECT_EQ(Hx(sb), Hx(rhs));
}

}  // namespace
}  // namespace veil::zk
