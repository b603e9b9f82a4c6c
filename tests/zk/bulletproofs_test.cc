// Bulletproofs range proofs: completeness for every width (0, 2^n - 1 and random values) and for
// aggregated proofs of m = 1..16 values (powers of two and not), refusal of out-of-range values,
// soundness (every bit flip of an 8-bit proof, sampled flips of a 64-bit and an aggregated proof,
// wrong commitments, widths, counts, orders and contexts, proofs for out-of-range values built by a
// cheating prover), strict decoding, batch verification, the transcript state after a proof, the
// nonce hedging, and the generators against an independent derivation (expand_message_xmd in
// Python, libsodium's from_hash).
//
// The cheating prover is an independent, plain implementation of the protocol exactly as
// docs/notes/bulletproofs.md writes it (variable-time sums, explicit folding of the generators);
// its honest proofs verify, which checks the note, the transcript layout and the verifier against
// something other than the optimised prover.
#include "veil/zk/bulletproofs.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <thread>
#include <vector>

#include "veil/zk/transcript.h"
#include "zk_test_util.h"

namespace veil::zk {
namespace {

using test::FlipBit;
using test::H;
using test::Hx;
using test::TestRng;

constexpr std::array<std::size_t, 4> kWidths = {8, 16, 32, 64};

// The 32-byte word `word` of an encoded proof.
Bytes::iterator At(Bytes& b, std::size_t word) {
  return b.begin() + static_cast<std::ptrdiff_t>(32 * word);
}

Transcript Context() {
  Transcript t("veil.test.bulletproofs", 1);
  t.AppendMessage("session", AsBytes("test"));
  return t;
}

ec::Scalar Pow2(std::size_t e) {
  ec::Scalar r = ec::Scalar::One();
  for (std::size_t i = 0; i < e; ++i) r = r + r;
  return r;
}

// A uniform value below 2^n.
ec::Scalar RandomValue(TestRng& rng, std::size_t n) {
  const auto b = rng.Bytes32();
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{b[i]} << (8 * i);
  if (n < 64) v &= (std::uint64_t{1} << n) - 1;
  return ec::Scalar::FromUint64(v);
}

RangeProofWithCommitments Prove(std::size_t n, const std::vector<ec::Scalar>& values,
                                const std::vector<ec::Scalar>& blindings) {
  Transcript t = Context();
  auto r = ProveRange(t, n, values, blindings);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

Status Verify(std::size_t n, std::span<const Commitment> commitments, const RangeProof& proof) {
  Transcript t = Context();
  return VerifyRange(t, n, commitments, proof);
}

// Decodes `bytes` for (n, m) and verifies; a decoding error is returned as is.
Status VerifyBytes(std::size_t n, std::span<const Commitment> commitments, ByteView bytes) {
  auto proof = RangeProof::Decode(bytes, n, commitments.size());
  if (!proof.ok()) return proof.status();
  return Verify(n, commitments, *proof);
}

struct Instance {
  std::size_t n;
  std::vector<ec::Scalar> values, blindings;
  RangeProofWithCommitments out;
};

Instance MakeInstance(TestRng& rng, std::size_t n, std::size_t m) {
  Instance in{n, {}, {}, {}};
  for (std::size_t j = 0; j < m; ++j) {
    in.values.push_back(RandomValue(rng, n));
    in.blindings.push_back(rng.Scalar());
  }
  in.out = Prove(n, in.values, in.blindings);
  return in;
}

TEST(Bulletproofs, SizesAndShapes) {
  EXPECT_EQ(RangeProofSize(64, 1), 672u);
  EXPECT_EQ(RangeProofSize(8, 1), 32u * (9 + 2 * 3));
  EXPECT_EQ(RangeProofSize(32, 1), 32u * (9 + 2 * 5));
  EXPECT_EQ(RangeProofSize(64, 2), 32u * (9 + 2 * 7));
  EXPECT_EQ(RangeProofSize(64, 3), RangeProofSize(64, 4));  // padded to 4
  EXPECT_EQ(RangeProofSize(64, 64), 32u * (9 + 2 * 12));
  EXPECT_EQ(RangeProofSize(64, 0), 0u);
  EXPECT_EQ(RangeProofSize(64, 65), 0u);
  EXPECT_EQ(RangeProofSize(128, 1), 0u);
  EXPECT_EQ(RangeProofSize(0, 1), 0u);
  EXPECT_EQ(RangeProofSize(65, 1), 0u);
  // Other widths take the padded width's size.
  EXPECT_EQ(RangeProofSize(1, 1), RangeProofSize(8, 1));
  EXPECT_EQ(RangeProofSize(7, 1), RangeProofSize(8, 1));
  EXPECT_EQ(RangeProofSize(12, 3), RangeProofSize(16, 4));
  EXPECT_EQ(RangeProofSize(40, 1), 672u);
  for (std::size_t n : std::array<std::size_t, 4>{0, 65, 128, 256})
    EXPECT_FALSE(IsSupportedRangeBits(n)) << n;
  for (std::size_t n = 1; n <= 64; ++n) {
    EXPECT_TRUE(IsSupportedRangeBits(n)) << n;
    EXPECT_TRUE(std::has_single_bit(PaddedRangeBits(n)) && PaddedRangeBits(n) >= n &&
                PaddedRangeBits(n) >= 8 && PaddedRangeBits(n) < 2 * std::max<std::size_t>(n, 8))
        << n;
  }
}

TEST(Bulletproofs, CompletenessEveryWidth) {
  TestRng rng(40);
  for (std::size_t n : kWidths) {
    const ec::Scalar max = Pow2(n) - ec::Scalar::One();
    for (const ec::Scalar& v : {ec::Scalar::Zero(), ec::Scalar::One(), max, RandomValue(rng, n)}) {
      const std::vector<ec::Scalar> values = {v}, blindings = {rng.Scalar()};
      const auto out = Prove(n, values, blindings);
      EXPECT_TRUE(out.commitments[0] == PedersenGens::Default().Commit(v, blindings[0]));
      EXPECT_TRUE(Verify(n, out.commitments, out.proof).ok()) << n;
      // Round trip: exactly RangeProofSize bytes, canonical, and the decoded proof verifies.
      const Bytes enc = out.proof.Encode();
      EXPECT_EQ(enc.size(), RangeProofSize(n, 1));
      EXPECT_EQ(enc.size(), out.proof.size());
      auto dec = RangeProof::Decode(enc, n, 1);
      ASSERT_TRUE(dec.ok()) << dec.status().ToString();
      EXPECT_EQ(Hx(dec->Encode()), Hx(enc));
      EXPECT_TRUE(Verify(n, out.commitments, *dec).ok());
    }
  }
}

// Widths that are not powers of two: proven over the padded width with zero weights above n.
TEST(Bulletproofs, WidthsThatAreNotPowersOfTwo) {
  TestRng rng(43);
  for (std::size_t n : std::array<std::size_t, 6>{1, 5, 12, 40, 52, 63}) {
    const ec::Scalar max = Pow2(n) - ec::Scalar::One();
    for (const ec::Scalar& v : {ec::Scalar::Zero(), max, RandomValue(rng, n)}) {
      const std::vector<ec::Scalar> values = {v, max}, blindings = {rng.Scalar(), rng.Scalar()};
      const auto out = Prove(n, values, blindings);
      EXPECT_TRUE(Verify(n, out.commitments, out.proof).ok()) << n;
      EXPECT_EQ(out.proof.Encode().size(), RangeProofSize(n, 2));
      // The width is part of the statement: the padded width, or any other, rejects it.
      EXPECT_EQ(Verify(PaddedRangeBits(n), out.commitments, out.proof), VerificationFailed()) << n;
      if (n > 1) {
        EXPECT_FALSE(Verify(n - 1, out.commitments, out.proof).ok()) << n;
      }
    }
    // 2^n is refused by the prover, and a proof of it for the padded width does not pass as n.
    Transcript t = Context();
    const std::vector<ec::Scalar> over = {Pow2(n)}, blinding = {rng.Scalar()};
    EXPECT_EQ(ProveRange(t, n, over, blinding).status().code(), Code::kInvalidArgument) << n;
    const auto wide = Prove(PaddedRangeBits(n), over, blinding);
    EXPECT_EQ(Verify(n, wide.commitments, wide.proof), VerificationFailed()) << n;
  }
}

TEST(Bulletproofs, CompletenessAggregated) {
  TestRng rng(41);
  struct Case {
    std::size_t n, m;
  };
  for (const Case c : {Case{64, 1}, Case{64, 2}, Case{32, 3}, Case{64, 4}, Case{16, 5}, Case{32, 7},
                       Case{8, 8}, Case{16, 16}, Case{64, 16}}) {
    std::vector<ec::Scalar> values, blindings;
    for (std::size_t j = 0; j < c.m; ++j) {
      // The extremes at the ends, random values between.
      values.push_back(
          j == 0 ? ec::Scalar::Zero()
                 : (j + 1 == c.m ? Pow2(c.n) - ec::Scalar::One() : RandomValue(rng, c.n)));
      blindings.push_back(rng.Scalar());
    }
    const auto out = Prove(c.n, values, blindings);
    ASSERT_EQ(out.commitments.size(), c.m);
    EXPECT_EQ(out.proof.Encode().size(), RangeProofSize(c.n, c.m));
    EXPECT_EQ(out.proof.rounds(),
              static_cast<std::size_t>(std::countr_zero(c.n)) +
                  static_cast<std::size_t>(std::countr_zero(std::bit_ceil(c.m))));
    EXPECT_TRUE(Verify(c.n, out.commitments, out.proof).ok()) << c.n << " x " << c.m;
    EXPECT_TRUE(VerifyBytes(c.n, out.commitments, out.proof.Encode()).ok());
  }
}

TEST(Bulletproofs, ProveRefusesOutOfRangeValues) {
  TestRng rng(42);
  const ec::Scalar u64_max = ec::Scalar::FromUint64(~std::uint64_t{0});
  struct Case {
    std::size_t n;
    ec::Scalar v;
  };
  const ec::Scalar minus_one = -ec::Scalar::One();  // l - 1, the largest scalar
  for (const Case& c : {Case{8, Pow2(8)}, Case{8, ec::Scalar::FromUint64(1000)}, Case{16, Pow2(16)},
                        Case{32, Pow2(32)}, Case{32, u64_max}, Case{64, Pow2(64)},
                        Case{64, Pow2(64) + ec::Scalar::One()}, Case{64, Pow2(200)},
                        Case{8, minus_one}, Case{64, minus_one}}) {
    Transcript t = Context();
    const std::vector<ec::Scalar> values = {c.v}, blindings = {rng.Scalar()};
    const auto r = ProveRange(t, c.n, values, blindings);
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << c.n;
  }
  // One bad value among good ones spoils the whole aggregated proof.
  {
    Transcript t = Context();
    const std::vector<ec::Scalar> values = {ec::Scalar::One(), Pow2(16), ec::Scalar::Zero()};
    const std::vector<ec::Scalar> blindings = {rng.Scalar(), rng.Scalar(), rng.Scalar()};
    EXPECT_EQ(ProveRange(t, 16, values, blindings).status().code(), Code::kInvalidArgument);
  }
  // Unsupported shapes.
  const std::vector<ec::Scalar> one = {ec::Scalar::One()};
  for (std::size_t n : std::array<std::size_t, 4>{0, 65, 100, 128}) {
    Transcript t = Context();
    EXPECT_EQ(ProveRange(t, n, one, one).status().code(), Code::kInvalidArgument) << n;
  }
  {
    Transcript t = Context();
    EXPECT_EQ(ProveRange(t, 64, {}, {}).status().code(), Code::kInvalidArgument);
    const std::vector<ec::Scalar> many(kRangeProofMaxValues + 1, ec::Scalar::One());
    EXPECT_EQ(ProveRange(t, 8, many, many).status().code(), Code::kInvalidArgument);
    const std::vector<ec::Scalar> two = {ec::Scalar::One(), ec::Scalar::One()};
    EXPECT_EQ(ProveRange(t, 8, one, two).status().code(), Code::kInvalidArgument);
  }
}

// Several threads proving and verifying sizes that grow the generator and table caches at the same
// time (ctest runs each test in its own process, so the caches start cold here).
TEST(Bulletproofs, ConcurrentProvingAndVerifying) {
  struct Case {
    std::size_t n, m;
  };
  const std::array<Case, 4> cases = {Case{8, 1}, Case{16, 2}, Case{32, 4}, Case{64, 2}};
  std::array<bool, 4> ok{};
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    threads.emplace_back([&, c] {
      TestRng rng(100 + c);
      std::vector<ec::Scalar> values, blindings;
      for (std::size_t j = 0; j < cases[c].m; ++j) {
        values.push_back(RandomValue(rng, cases[c].n));
        blindings.push_back(rng.Scalar());
      }
      Transcript pt = Context();
      auto out = ProveRange(pt, cases[c].n, values, blindings);
      Transcript vt = Context();
      ok[c] = out.ok() && VerifyRange(vt, cases[c].n, out->commitments, out->proof).ok();
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t c = 0; c < cases.size(); ++c) EXPECT_TRUE(ok[c]) << c;
}

// Every outcome of a mutated proof must be a rejection of one of the two kinds.
void ExpectRejected(const Status& s, const std::string& what) {
  EXPECT_FALSE(s.ok()) << what;
  EXPECT_TRUE(s.code() == Code::kInvalidArgument || s.code() == Code::kVerificationFailed)
      << what << ": " << s.ToString();
}

TEST(Bulletproofs, EveryBitFlipOfAn8BitProofRejected) {
  TestRng rng(43);
  const Instance in = MakeInstance(rng, 8, 1);
  const Bytes enc = in.out.proof.Encode();
  ASSERT_EQ(enc.size(), 480u);
  ASSERT_TRUE(VerifyBytes(8, in.out.commitments, enc).ok());
  std::size_t decoded = 0;
  for (std::size_t bit = 0; bit < 8 * enc.size(); ++bit) {
    const Bytes bad = FlipBit(enc, bit);
    const Status s = VerifyBytes(8, in.out.commitments, bad);
    ExpectRejected(s, "bit " + std::to_string(bit));
    decoded += s.code() == Code::kVerificationFailed;
  }
  // Many flips leave a well-formed proof (low scalar bits, some point bits): those reached the
  // verification equation and failed there.
  EXPECT_GT(decoded, 500u);
}

TEST(Bulletproofs, SampledBitFlipsRejected) {
  TestRng rng(44);
  for (const auto& [n, m] : {std::pair<std::size_t, std::size_t>{64, 1}, {16, 3}}) {
    const Instance in = MakeInstance(rng, n, m);
    const Bytes enc = in.out.proof.Encode();
    ASSERT_TRUE(VerifyBytes(n, in.out.commitments, enc).ok());
    for (std::size_t byte = 0; byte < enc.size(); ++byte) {
      const std::size_t bit = 8 * byte + rng.Bytes32()[0] % 8;
      ExpectRejected(VerifyBytes(n, in.out.commitments, FlipBit(enc, bit)),
                     std::to_string(n) + "x" + std::to_string(m) + " bit " + std::to_string(bit));
    }
  }
}

TEST(Bulletproofs, WrongStatementRejected) {
  TestRng rng(45);
  const PedersenGens& pc = PedersenGens::Default();
  const Instance single = MakeInstance(rng, 64, 1);
  // Another commitment: other value, other blinding, the same value plus one.
  for (const Commitment& c : {pc.Commit(single.values[0] + ec::Scalar::One(), single.blindings[0]),
                              pc.Commit(single.values[0], rng.Scalar()), Commitment()}) {
    const std::vector<Commitment> cs = {c};
    EXPECT_EQ(Verify(64, cs, single.out.proof), VerificationFailed());
  }
  // Another width: the size no longer matches (kInvalidArgument), or it does (n M the same) and
  // the transcript differs.
  EXPECT_EQ(Verify(32, single.out.commitments, single.out.proof).code(), Code::kInvalidArgument);
  EXPECT_EQ(Verify(7, single.out.commitments, single.out.proof).code(), Code::kInvalidArgument);
  {
    std::vector<Commitment> four = single.out.commitments;
    four.resize(4);  // n M = 16 * 4 = 64, the rounds match
    EXPECT_EQ(Verify(16, four, single.out.proof), VerificationFailed());
  }
  // Another context.
  {
    Transcript t("veil.test.bulletproofs", 2);
    t.AppendMessage("session", AsBytes("test"));
    EXPECT_EQ(VerifyRange(t, 64, single.out.commitments, single.out.proof), VerificationFailed());
  }

  // Aggregated: swapped commitments, a missing or an extra one, and the padding made explicit.
  const Instance three = MakeInstance(rng, 32, 3);
  ASSERT_TRUE(Verify(32, three.out.commitments, three.out.proof).ok());
  {
    std::vector<Commitment> swapped = three.out.commitments;
    std::swap(swapped[0], swapped[2]);
    EXPECT_EQ(Verify(32, swapped, three.out.proof), VerificationFailed());
    std::swap(swapped[0], swapped[1]);
    EXPECT_EQ(Verify(32, swapped, three.out.proof), VerificationFailed());
  }
  {
    // m = 4 with the identity as the fourth: the same sums as the padding, but m = 3 is in the
    // transcript, so the proof is for a different statement.
    std::vector<Commitment> four = three.out.commitments;
    four.push_back(Commitment());
    EXPECT_EQ(Verify(32, four, three.out.proof), VerificationFailed());
    std::vector<Commitment> two(three.out.commitments.begin(), three.out.commitments.begin() + 2);
    EXPECT_EQ(Verify(32, two, three.out.proof).code(), Code::kInvalidArgument);  // 64 vs 128
    const std::vector<Commitment> none;
    EXPECT_EQ(Verify(32, none, three.out.proof).code(), Code::kInvalidArgument);
  }
  // Replacing one commitment by another in-range commitment.
  {
    std::vector<Commitment> other = three.out.commitments;
    other[1] = pc.Commit(ec::Scalar::FromUint64(5), rng.Scalar());
    EXPECT_EQ(Verify(32, other, three.out.proof), VerificationFailed());
  }
}

TEST(Bulletproofs, StrictDecoding) {
  TestRng rng(46);
  const Instance in = MakeInstance(rng, 16, 1);
  const Bytes enc = in.out.proof.Encode();
  const std::size_t size = enc.size();
  ASSERT_EQ(size, 32u * (9 + 2 * 4));
  const auto decode_code = [&](ByteView b) { return RangeProof::Decode(b, 16, 1).status().code(); };
  // Truncated and extended, by a byte and by whole words.
  for (std::size_t cut : std::array<std::size_t, 5>{1, 31, 32, 64, 96}) {
    EXPECT_EQ(decode_code(ByteView(enc).first(size - cut)), Code::kInvalidArgument) << cut;
  }
  for (std::size_t extra : std::array<std::size_t, 3>{1, 32, 64}) {
    Bytes longer = enc;
    longer.resize(size + extra, 0);
    EXPECT_EQ(decode_code(longer), Code::kInvalidArgument) << extra;
  }
  EXPECT_EQ(decode_code({}), Code::kInvalidArgument);
  // The length-only decoder accepts other sizes of well-formed proofs, and the verifier then
  // refuses the shape: here one more round of identity points before a and b.
  {
    Bytes longer = enc;
    longer.insert(longer.end() - 64, 64, 0);
    auto decoded = RangeProof::Decode(longer);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->rounds(), in.out.proof.rounds() + 1);
    EXPECT_EQ(decode_code(longer), Code::kInvalidArgument);
    EXPECT_EQ(Verify(16, in.out.commitments, *decoded).code(), Code::kInvalidArgument);
    // Too few and too many rounds, and lengths that are not 32 (9 + 2 k).
    EXPECT_EQ(RangeProof::Decode(Bytes(32 * 13, 0)).status().code(), Code::kInvalidArgument);
    EXPECT_EQ(RangeProof::Decode(Bytes(32 * 16, 0)).status().code(), Code::kInvalidArgument);
    EXPECT_EQ(RangeProof::Decode(Bytes(32 * 35, 0)).status().code(), Code::kInvalidArgument);
    EXPECT_EQ(RangeProof::Decode(Bytes(32 * 15 + 1, 0)).status().code(), Code::kInvalidArgument);
    // All zeros with the right length is well formed (identities and zero scalars) and fails.
    auto zeros = RangeProof::Decode(Bytes(32 * 15, 0));
    ASSERT_TRUE(zeros.ok());
    EXPECT_EQ(Verify(16, in.out.commitments, *zeros).code(), Code::kInvalidArgument);
    EXPECT_EQ(Verify(8, in.out.commitments, *zeros), VerificationFailed());
    const std::vector<Commitment> identity = {Commitment()};
    EXPECT_EQ(Verify(8, identity, *zeros), VerificationFailed());
  }
  // Non-canonical scalars: l itself and all ones, in each scalar slot (t_hat, tau_x, mu, a, b).
  const std::size_t k = in.out.proof.rounds();
  for (std::size_t word : {std::size_t{4}, std::size_t{5}, std::size_t{6}, 7 + 2 * k, 8 + 2 * k}) {
    Bytes bad = enc;
    std::copy(ec::kGroupOrderBytes.begin(), ec::kGroupOrderBytes.end(), At(bad, word));
    EXPECT_EQ(decode_code(bad), Code::kInvalidArgument) << word;
    std::fill(At(bad, word), At(bad, word) + 32, 0xff);
    EXPECT_EQ(decode_code(bad), Code::kInvalidArgument) << word;
  }
  // Non-canonical or invalid points in each point slot: p (the field prime, which re-encodes as
  // zero) and a negative s.
  const Bytes p_bytes = H("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
  const Bytes negative = H("0100000000000000000000000000000000000000000000000000000000000000");
  for (std::size_t word = 0; word < 9 + 2 * k; ++word) {
    if (word >= 4 && word < 7) continue;
    if (word >= 7 + 2 * k) continue;
    for (const Bytes& pb : {p_bytes, negative}) {
      Bytes bad = enc;
      std::copy(pb.begin(), pb.end(), At(bad, word));
      EXPECT_EQ(decode_code(bad), Code::kInvalidArgument) << word;
    }
  }
}

TEST(Bulletproofs, TranscriptStateAfterProofAgrees) {
  TestRng rng(47);
  const std::vector<ec::Scalar> values = {RandomValue(rng, 32), RandomValue(rng, 32)};
  const std::vector<ec::Scalar> blindings = {rng.Scalar(), rng.Scalar()};
  Transcript pt = Context();
  const auto out = ProveRange(pt, 32, values, blindings);
  ASSERT_TRUE(out.ok());
  Transcript vt = Context();
  ASSERT_TRUE(VerifyRange(vt, 32, out->commitments, out->proof).ok());
  EXPECT_TRUE(pt.ChallengeScalar("next") == vt.ChallengeScalar("next"));
  // A second proof chained in the same transcripts.
  const auto out2 = ProveRange(pt, 8, std::vector<ec::Scalar>{ec::Scalar::One()},
                               std::vector<ec::Scalar>{rng.Scalar()});
  ASSERT_TRUE(out2.ok());
  EXPECT_TRUE(VerifyRange(vt, 8, out2->commitments, out2->proof).ok());
  // Out of order, it fails.
  Transcript fresh = Context();
  EXPECT_EQ(VerifyRange(fresh, 8, out2->commitments, out2->proof), VerificationFailed());
}

TEST(Bulletproofs, NonceHedging) {
  TestRng rng(48);
  const std::vector<ec::Scalar> values = {ec::Scalar::FromUint64(1234)};
  const std::vector<ec::Scalar> blindings = {rng.Scalar()};
  std::array<std::uint8_t, 32> zero{}, one{};
  one[0] = 1;
  const auto prove = [&](std::span<const std::uint8_t, 32> r) {
    Transcript t = Context();
    return ProveRangeWithRandomness(t, 32, values, blindings, r).value().proof.Encode();
  };
  EXPECT_EQ(Hx(prove(zero)), Hx(prove(zero)));
  EXPECT_NE(Hx(prove(zero)), Hx(prove(one)));
  Transcript t1 = Context(), t2 = Context();
  EXPECT_NE(Hx(ProveRange(t1, 32, values, blindings)->proof.Encode()),
            Hx(ProveRange(t2, 32, values, blindings)->proof.Encode()));
}

TEST(Bulletproofs, BatchVerification) {
  TestRng rng(49);
  struct Case {
    std::size_t n, m;
  };
  std::vector<Instance> instances;
  for (const Case c :
       {Case{64, 1}, Case{8, 1}, Case{16, 3}, Case{32, 2}, Case{64, 1}, Case{8, 5}, Case{64, 2}}) {
    instances.push_back(MakeInstance(rng, c.n, c.m));
  }
  const auto run = [&](const std::vector<const Instance*>& batch, std::size_t bad_index,
                       const RangeProof* bad_proof) {
    RangeProofBatchVerifier v;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      Transcript t = Context();
      const RangeProof& p = i == bad_index ? *bad_proof : batch[i]->out.proof;
      EXPECT_TRUE(v.Add(t, batch[i]->n, batch[i]->out.commitments, p).ok());
    }
    EXPECT_EQ(v.size(), batch.size());
    return v.Verify();
  };
  std::vector<const Instance*> all;
  for (const auto& in : instances) all.push_back(&in);
  EXPECT_TRUE(run(all, all.size(), nullptr).ok());
  EXPECT_TRUE(RangeProofBatchVerifier().Verify().ok());

  // One bad proof in the batch: a proof of another statement of the same shape.
  for (std::size_t bad : {std::size_t{0}, std::size_t{2}, std::size_t{6}}) {
    const Instance other =
        MakeInstance(rng, instances[bad].n, instances[bad].out.commitments.size());
    EXPECT_EQ(run(all, bad, &other.out.proof), VerificationFailed()) << bad;
  }
  // A proof with t_hat changed (still well formed).
  {
    Bytes enc = instances[3].out.proof.Encode();
    enc[4 * 32] ^= 1;
    const auto tampered = RangeProof::Decode(enc).value();
    EXPECT_EQ(run(all, 3, &tampered), VerificationFailed());
  }
  // A malformed addition fails the batch.
  {
    RangeProofBatchVerifier v;
    Transcript t = Context();
    EXPECT_TRUE(v.Add(t, 64, instances[0].out.commitments, instances[0].out.proof).ok());
    Transcript t2 = Context();
    EXPECT_EQ(v.Add(t2, 32, instances[0].out.commitments, instances[0].out.proof).code(),
              Code::kInvalidArgument);
    EXPECT_EQ(v.Verify().code(), Code::kInvalidArgument);
  }
}

// ---- An independent, plain prover (the note's protocol), honest or cheating ----

// Proves with the given a_L (N = np M entries, np = PaddedRangeBits(n)) instead of the bits of
// the values; values and blindings make the commitments. Honest when a_L holds the bits.
Bytes PlainProve(std::size_t n, const std::vector<ec::Scalar>& values,
                 const std::vector<ec::Scalar>& blindings, const std::vector<ec::Scalar>& a_l,
                 TestRng& rng) {
  const std::size_t np = PaddedRangeBits(n);
  const std::size_t m = values.size(), big_m = std::bit_ceil(m), big_n = np * big_m;
  std::vector<ec::RistrettoPoint> G, Hv;
  for (std::size_t i = 0; i < big_n; ++i) {
    G.push_back(BulletproofsGeneratorG(static_cast<std::uint32_t>(i)));
    Hv.push_back(BulletproofsGeneratorH(static_cast<std::uint32_t>(i)));
  }
  const PedersenGens& pc = PedersenGens::Default();
  const ec::RistrettoPoint B = pc.G(), Bt = pc.H();
  const auto msm = [](std::vector<ec::Scalar> s, std::vector<ec::RistrettoPoint> p) {
    return ec::MultiScalarMulVartime(s, p);
  };
  const auto inner = [](std::span<const ec::Scalar> a, std::span<const ec::Scalar> b) {
    ec::Scalar acc;
    for (std::size_t i = 0; i < a.size(); ++i) acc += a[i] * b[i];
    return acc;
  };

  Transcript t = Context();
  t.AppendMessage("bp.protocol", AsBytes("veil.zk.bulletproofs.range.v1"));
  t.AppendU64("bp.n", n);
  t.AppendU64("bp.m", m);
  for (std::size_t j = 0; j < m; ++j)
    t.AppendPoint("bp.V", pc.Commit(values[j], blindings[j]).point());

  std::vector<ec::Scalar> a_r(big_n), s_l(big_n), s_r(big_n);
  for (std::size_t i = 0; i < big_n; ++i) {
    a_r[i] = a_l[i] - ec::Scalar::One();
    s_l[i] = rng.Scalar();
    s_r[i] = rng.Scalar();
  }
  const ec::Scalar alpha = rng.Scalar(), rho = rng.Scalar(), tau1 = rng.Scalar(),
                   tau2 = rng.Scalar();
  std::vector<ec::Scalar> sc;
  std::vector<ec::RistrettoPoint> pt;
  const auto vec_commit = [&](const ec::Scalar& blind, const std::vector<ec::Scalar>& l,
                              const std::vector<ec::Scalar>& r) {
    std::vector<ec::Scalar> s = {blind};
    std::vector<ec::RistrettoPoint> p = {Bt};
    s.insert(s.end(), l.begin(), l.end());
    p.insert(p.end(), G.begin(), G.end());
    s.insert(s.end(), r.begin(), r.end());
    p.insert(p.end(), Hv.begin(), Hv.end());
    return msm(s, p);
  };
  const ec::RistrettoPoint A = vec_commit(alpha, a_l, a_r), S = vec_commit(rho, s_l, s_r);
  t.AppendPoint("bp.A", A);
  t.AppendPoint("bp.S", S);
  const ec::Scalar y = t.ChallengeScalar("bp.y"), z = t.ChallengeScalar("bp.z");

  std::vector<ec::Scalar> l0(big_n), r0(big_n), r1(big_n);
  ec::Scalar y_i = ec::Scalar::One();
  for (std::size_t i = 0; i < big_n; ++i) {
    ec::Scalar z_j = z * z;  // z^(2+j)
    for (std::size_t j = 0; j < i / np; ++j) z_j *= z;
    l0[i] = a_l[i] - z;
    // The power vector: 2^i below the width, 0 in the padding.
    r0[i] = y_i * (a_r[i] + z) + z_j * (i % np < n ? Pow2(i % np) : ec::Scalar::Zero());
    r1[i] = y_i * s_r[i];
    y_i *= y;
  }
  const ec::Scalar t1 = inner(l0, r1) + inner(s_l, r0), t2 = inner(s_l, r1);
  t.AppendPoint("bp.T1", msm({t1, tau1}, {B, Bt}));
  t.AppendPoint("bp.T2", msm({t2, tau2}, {B, Bt}));
  const ec::Scalar x = t.ChallengeScalar("bp.x");
  std::vector<ec::Scalar> l(big_n), r(big_n);
  for (std::size_t i = 0; i < big_n; ++i) {
    l[i] = l0[i] + s_l[i] * x;
    r[i] = r0[i] + r1[i] * x;
  }
  const ec::Scalar t_hat = inner(l, r);
  ec::Scalar tau_x = tau2 * x * x + tau1 * x, z_j = z * z;
  for (std::size_t j = 0; j < m; ++j, z_j *= z) tau_x += z_j * blindings[j];
  const ec::Scalar mu = alpha + rho * x;
  t.AppendScalar("bp.t_hat", t_hat);
  t.AppendScalar("bp.tau_x", tau_x);
  t.AppendScalar("bp.mu", mu);
  const ec::Scalar w = t.ChallengeScalar("bp.w");

  Bytes out;
  const auto put_point = [&](const ec::RistrettoPoint& p) {
    const auto e = p.Encode().bytes();
    out.insert(out.end(), e.begin(), e.end());
  };
  const auto put_scalar = [&](const ec::Scalar& s) {
    const auto e = s.ToBytes();
    out.insert(out.end(), e.begin(), e.end());
  };
  put_point(A);
  put_point(S);
  put_point(msm({t1, tau1}, {B, Bt}));
  put_point(msm({t2, tau2}, {B, Bt}));
  put_scalar(t_hat);
  put_scalar(tau_x);
  put_scalar(mu);

  // The inner-product argument with every generator folded explicitly; H'_i = y^-i H_i.
  const ec::Scalar y_inv = y.Invert();
  std::vector<ec::RistrettoPoint> g = G, h(big_n);
  ec::Scalar yi = ec::Scalar::One();
  for (std::size_t i = 0; i < big_n; ++i, yi *= y_inv) h[i] = Hv[i].MulVartime(yi);
  t.AppendU64("ipa.n", big_n);
  for (std::size_t len = big_n; len > 1; len /= 2) {
    const std::size_t half = len / 2;
    std::vector<ec::Scalar> ls, rs;
    std::vector<ec::RistrettoPoint> lp, rp;
    for (std::size_t i = 0; i < half; ++i) {
      ls.push_back(l[i]);
      lp.push_back(g[half + i]);
      ls.push_back(r[half + i]);
      lp.push_back(h[i]);
      rs.push_back(l[half + i]);
      rp.push_back(g[i]);
      rs.push_back(r[i]);
      rp.push_back(h[half + i]);
    }
    ls.push_back(inner(std::span(l).first(half), std::span(r).subspan(half, half)) * w);
    lp.push_back(B);
    rs.push_back(inner(std::span(l).subspan(half, half), std::span(r).first(half)) * w);
    rp.push_back(B);
    const ec::RistrettoPoint L = msm(ls, lp), R = msm(rs, rp);
    t.AppendPoint("ipa.L", L);
    t.AppendPoint("ipa.R", R);
    put_point(L);
    put_point(R);
    const ec::Scalar u = t.ChallengeScalar("ipa.u"), ui = u.Invert();
    for (std::size_t i = 0; i < half; ++i) {
      l[i] = l[i] * u + l[half + i] * ui;
      r[i] = r[i] * ui + r[half + i] * u;
      g[i] = msm({ui, u}, {g[i], g[half + i]});
      h[i] = msm({u, ui}, {h[i], h[half + i]});
    }
  }
  put_scalar(l[0]);
  put_scalar(r[0]);
  return out;
}

// The low n bits of each value, PaddedRangeBits(n) entries a value (the padding entries 0).
std::vector<ec::Scalar> BitsOf(const std::vector<ec::Scalar>& values, std::size_t n) {
  const std::size_t np = PaddedRangeBits(n);
  std::vector<ec::Scalar> a_l(np * std::bit_ceil(values.size()));
  for (std::size_t j = 0; j < values.size(); ++j) {
    for (std::size_t i = 0; i < n; ++i) a_l[j * np + i] = ec::Scalar::FromUint64(values[j].Bit(i));
  }
  return a_l;
}

std::vector<Commitment> CommitAll(const std::vector<ec::Scalar>& values,
                                  const std::vector<ec::Scalar>& blindings) {
  std::vector<Commitment> out;
  for (std::size_t j = 0; j < values.size(); ++j) {
    out.push_back(PedersenGens::Default().Commit(values[j], blindings[j]));
  }
  return out;
}

TEST(Bulletproofs, PlainProverAgreesWithTheVerifier) {
  TestRng rng(50);
  for (const auto& [n, m] :
       {std::pair<std::size_t, std::size_t>{8, 1}, {16, 3}, {40, 2}, {5, 1}, {64, 1}}) {
    std::vector<ec::Scalar> values, blindings;
    for (std::size_t j = 0; j < m; ++j) {
      values.push_back(RandomValue(rng, n));
      blindings.push_back(rng.Scalar());
    }
    const Bytes proof = PlainProve(n, values, blindings, BitsOf(values, n), rng);
    EXPECT_EQ(proof.size(), RangeProofSize(n, m));
    EXPECT_TRUE(VerifyBytes(n, CommitAll(values, blindings), proof).ok()) << n << "x" << m;
  }
}

TEST(Bulletproofs, CheatingProverRejected) {
  TestRng rng(51);
  for (std::size_t n : std::array<std::size_t, 3>{8, 40, 64}) {
    const std::vector<ec::Scalar> blindings = {rng.Scalar()};
    // v = 2^n with a_L = its low n bits (all zero): <a_L, 2^n> != v.
    {
      const std::vector<ec::Scalar> values = {Pow2(n)};
      const Bytes proof = PlainProve(n, values, blindings, BitsOf(values, n), rng);
      EXPECT_EQ(VerifyBytes(n, CommitAll(values, blindings), proof), VerificationFailed()) << n;
    }
    // v = 2^n + 5 with a_L = the bits of 5.
    {
      const std::vector<ec::Scalar> values = {Pow2(n) + ec::Scalar::FromUint64(5)};
      const Bytes proof = PlainProve(n, values, blindings, BitsOf(values, n), rng);
      EXPECT_EQ(VerifyBytes(n, CommitAll(values, blindings), proof), VerificationFailed()) << n;
    }
    // v = 2^n with a non-binary a_L whose weighted sum is v: a_L[n-1] = 2.
    {
      const std::vector<ec::Scalar> values = {Pow2(n)};
      std::vector<ec::Scalar> a_l(PaddedRangeBits(n));
      a_l[n - 1] = ec::Scalar::FromUint64(2);
      const Bytes proof = PlainProve(n, values, blindings, a_l, rng);
      EXPECT_EQ(VerifyBytes(n, CommitAll(values, blindings), proof), VerificationFailed()) << n;
    }
    // A padded width: v = 2^n with the bit for 2^n set in the padding, which weighs 0.
    if (PaddedRangeBits(n) > n) {
      const std::vector<ec::Scalar> values = {Pow2(n)};
      std::vector<ec::Scalar> a_l(PaddedRangeBits(n));
      a_l[n] = ec::Scalar::One();
      const Bytes proof = PlainProve(n, values, blindings, a_l, rng);
      EXPECT_EQ(VerifyBytes(n, CommitAll(values, blindings), proof), VerificationFailed()) << n;
      // The same bits are an honest proof of 2^n at the padded width.
      const Bytes wide = PlainProve(PaddedRangeBits(n), values, blindings, a_l, rng);
      EXPECT_TRUE(VerifyBytes(PaddedRangeBits(n), CommitAll(values, blindings), wide).ok()) << n;
    }
    // v = l - 1 (that is -1) with a_L all ones: no binary a_L sums to it.
    {
      const std::vector<ec::Scalar> values = {-ec::Scalar::One()};
      std::vector<ec::Scalar> a_l(PaddedRangeBits(n), ec::Scalar::One());
      const Bytes proof = PlainProve(n, values, blindings, a_l, rng);
      EXPECT_EQ(VerifyBytes(n, CommitAll(values, blindings), proof), VerificationFailed()) << n;
    }
  }
  // Aggregated, one value out of range, padded: m = 3 at n = 16.
  {
    const std::vector<ec::Scalar> values = {ec::Scalar::FromUint64(7), Pow2(16),
                                            ec::Scalar::FromUint64(9)};
    const std::vector<ec::Scalar> blindings = {rng.Scalar(), rng.Scalar(), rng.Scalar()};
    const Bytes proof = PlainProve(16, values, blindings, BitsOf(values, 16), rng);
    EXPECT_EQ(VerifyBytes(16, CommitAll(values, blindings), proof), VerificationFailed());
  }
}

// expand_message_xmd(SHA-512, tag || u32_be(i), kBulletproofsDst, 64), computed in Python
// (docs/notes/bulletproofs.md), mapped by libsodium's from_hash.
TEST(Bulletproofs, GeneratorsMatchAnIndependentDerivation) {
  ASSERT_GE(sodium_init(), 0);
  struct Vector {
    char tag;
    std::uint32_t i;
    const char* uniform;
  };
  const Vector kVectors[] = {
      {'G', 0,
       "2d4ffefd5dbaba27146f21e1f2a032461aefab68907b5e4abea10ea244c2bb2745508c81ecf77afc0f7d63425c"
       "68757df7725d46a0e16c6e4404d306c17a160f"},
      {'H', 0,
       "aba5f2ca83e585e7891ea28a2564391e7c72434968064ee021a7a63d490ec9e2a21f01d66609a1adc425672814"
       "8e4b65976e96ab02e476c27a5dbc01cba7564f"},
      {'G', 1,
       "686d35daf4f03ddf6bf08e62e7f9b1c9746b38a3726cd334c5b444af8e04406f43730191de14753b19a0a7d5bc"
       "03f6104fb125131ac6bf9272ad3ff9cba83f30"},
      {'H', 1,
       "bcfd1ffb15d596b898ca3d01e81bfa5793fdf4c9270a975d05215854649053e470814d4ab1e29c14a454ad7ff9"
       "9584017712a9bb1505c22f88e038afc35c0791"},
      {'G', 4095,
       "7e8d51f9cddccbca88fb96a891339b28a17cb04e3b6a78e8ce1b3a6d4e8090672ae5dc5dabed37dac852096df2"
       "5573c5f02a30d695f76bfed0e3f36ed9ac7808"},
      {'H', 4095,
       "8e1d5566d77c7e339646a4c48669670460e6f2d322dfdb06e83667c23b8f60b4db52e2bb89cca571d077750299"
       "fd1acce302a0add16a018adc3952f191a6b35a"},
  };
  for (const Vector& v : kVectors) {
    const Bytes uniform = H(v.uniform);
    ASSERT_EQ(uniform.size(), 64u);
    std::array<std::uint8_t, 32> expected{};
    ASSERT_EQ(crypto_core_ristretto255_from_hash(expected.data(), uniform.data()), 0);
    const ec::RistrettoPoint p =
        v.tag == 'G' ? BulletproofsGeneratorG(v.i) : BulletproofsGeneratorH(v.i);
    EXPECT_EQ(Hx(p.Encode().bytes()), Hx(expected)) << v.tag << v.i;
  }
  // Distinct from each other and from the Pedersen generators.
  EXPECT_FALSE(BulletproofsGeneratorG(0) == BulletproofsGeneratorH(0));
  EXPECT_FALSE(BulletproofsGeneratorG(0) == PedersenVectorGenerator(0));
  EXPECT_FALSE(BulletproofsGeneratorH(0) == PedersenGeneratorH());
}

}  // namespace
}  // namespace veil::zk
