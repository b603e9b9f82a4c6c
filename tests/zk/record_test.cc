// Record statements: completeness of each, refusal of false statements, binding to the
// commitment, the context and the statement's parameters, strict decoding, and flipped bits.
#include "veil/zk/record.h"

#include <gtest/gtest.h>
#include <sodium.h>

#include <vector>

#include "zk_test_util.h"

namespace veil::zk {
namespace {

using ec::Scalar;

const Bytes kKey = {1, 2, 3};
const Bytes kNonce = {9, 9, 9, 9};

RecordContext Ctx(std::string_view statement = "age >= 18") {
  return RecordContext{kKey, statement, kNonce};
}

// Slots: age 42, balance 1,000,000, name "alice", 7, then zeros.
RecordOpening Alice() {
  const std::vector<Scalar> slots = {RecordSlotFromInteger(42), RecordSlotFromInteger(1000000),
                                     RecordSlotFromString("alice"), RecordSlotFromInteger(7)};
  return RecordOpening(slots);
}

// One random bit flipped in every 32-byte field and in the header; each must be rejected.
template <typename VerifyFn>
void ExpectFlipsRejected(const RecordProof& proof, VerifyFn verify) {
  const Bytes good = proof.Encode();
  for (std::size_t start = 0; start < good.size(); start += start == 0 ? 2 : 32) {
    const std::size_t len = start == 0 ? 2 : std::min<std::size_t>(32, good.size() - start);
    Bytes bad = good;
    bad[start + randombytes_uniform(static_cast<std::uint32_t>(len))] ^=
        static_cast<std::uint8_t>(1u << randombytes_uniform(8));
    auto decoded = RecordProof::Decode(bad);
    if (!decoded.ok()) continue;
    EXPECT_FALSE(verify(*decoded).ok()) << "flip near byte " << start;
  }
}

TEST(RecordTest, SlotEquals) {
  const RecordOpening a = Alice();
  const Commitment c = a.Commit();
  auto proof = ProveSlotEquals(Ctx(), a, 2, RecordSlotFromString("alice"));
  ASSERT_TRUE(proof.ok());
  EXPECT_EQ(proof->Encode().size(), 2u + 32u * (1 + 8));
  EXPECT_TRUE(VerifySlotEquals(Ctx(), c, 2, RecordSlotFromString("alice"), *proof).ok());
  EXPECT_FALSE(VerifySlotEquals(Ctx(), c, 2, RecordSlotFromString("bob"), *proof).ok());
  EXPECT_FALSE(VerifySlotEquals(Ctx(), c, 1, RecordSlotFromString("alice"), *proof).ok());
  EXPECT_FALSE(VerifySlotEquals(Ctx("other"), c, 2, RecordSlotFromString("alice"), *proof).ok());
  EXPECT_FALSE(VerifySlotEquals(Ctx(), Alice().Commit(), 2, RecordSlotFromString("alice"), *proof)
                   .ok());  // same slots, another salt
  // A false statement is refused by the prover.
  EXPECT_EQ(ProveSlotEquals(Ctx(), a, 2, RecordSlotFromString("bob")).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(ProveSlotEquals(Ctx(), a, 8, Scalar()).status().code(), Code::kInvalidArgument);
  ExpectFlipsRejected(*proof, [&](const RecordProof& p) {
    return VerifySlotEquals(Ctx(), c, 2, RecordSlotFromString("alice"), p);
  });
}

TEST(RecordTest, SlotInRange) {
  const RecordOpening a = Alice();
  const Commitment c = a.Commit();
  for (const auto& [lo, hi] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {18, 150}, {42, 42}, {0, 1u << 20}, {0, ~std::uint64_t{0}}}) {
    auto proof = ProveSlotInRange(Ctx(), a, 0, lo, hi);
    ASSERT_TRUE(proof.ok()) << lo << ".." << hi;
    EXPECT_LE(proof->Encode().size(), 1300u);
    EXPECT_TRUE(VerifySlotInRange(Ctx(), c, 0, lo, hi, *proof).ok()) << lo << ".." << hi;
    EXPECT_FALSE(VerifySlotInRange(Ctx(), c, 0, lo + 1, hi, *proof).ok());
    EXPECT_FALSE(VerifySlotInRange(Ctx(), c, 1, lo, hi, *proof).ok());
    EXPECT_FALSE(VerifySlotInRange(Ctx("x"), c, 0, lo, hi, *proof).ok());
  }
  // Outside the range, on either side: the prover refuses.
  EXPECT_EQ(ProveSlotInRange(Ctx(), a, 0, 43, 100).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ProveSlotInRange(Ctx(), a, 0, 0, 41).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ProveSlotInRange(Ctx(), a, 0, 50, 40).status().code(), Code::kInvalidArgument);
  // A string slot (a 248-bit hash) fits no 64-bit range.
  EXPECT_EQ(ProveSlotInRange(Ctx(), a, 2, 0, ~std::uint64_t{0}).status().code(),
            Code::kInvalidArgument);
  auto proof = ProveSlotInRange(Ctx(), a, 1, 500000, 2000000);
  ASSERT_TRUE(proof.ok());
  ExpectFlipsRejected(*proof, [&](const RecordProof& p) {
    return VerifySlotInRange(Ctx(), c, 1, 500000, 2000000, p);
  });
}

TEST(RecordTest, SlotInSet) {
  const RecordOpening a = Alice();
  const Commitment c = a.Commit();
  std::vector<Scalar> set;
  for (const char* name : {"carol", "alice", "bob", "dave", "erin"}) {
    set.push_back(RecordSlotFromString(name));
  }
  auto proof = ProveSlotInSet(Ctx(), a, 2, set);
  ASSERT_TRUE(proof.ok());
  EXPECT_TRUE(VerifySlotInSet(Ctx(), c, 2, set, *proof).ok());
  std::vector<Scalar> other = set;
  other[1] = RecordSlotFromString("mallory");
  EXPECT_FALSE(VerifySlotInSet(Ctx(), c, 2, other, *proof).ok());
  EXPECT_FALSE(VerifySlotInSet(Ctx(), c, 3, set, *proof).ok());
  EXPECT_EQ(ProveSlotInSet(Ctx(), a, 2, other).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ProveSlotInSet(Ctx(), a, 2, {}).status().code(), Code::kInvalidArgument);
  ExpectFlipsRejected(*proof,
                      [&](const RecordProof& p) { return VerifySlotInSet(Ctx(), c, 2, set, p); });
}

TEST(RecordTest, SlotLessEqual) {
  const RecordOpening a = Alice();
  const Commitment c = a.Commit();
  auto proof = ProveSlotLessEqual(Ctx(), a, 3, 0);  // 7 <= 42
  ASSERT_TRUE(proof.ok());
  EXPECT_TRUE(VerifySlotLessEqual(Ctx(), c, 3, 0, *proof).ok());
  EXPECT_FALSE(VerifySlotLessEqual(Ctx(), c, 0, 3, *proof).ok());
  EXPECT_TRUE(ProveSlotLessEqual(Ctx(), a, 0, 0).ok());  // equal slots
  EXPECT_EQ(ProveSlotLessEqual(Ctx(), a, 0, 3).status().code(), Code::kInvalidArgument);
  ExpectFlipsRejected(*proof,
                      [&](const RecordProof& p) { return VerifySlotLessEqual(Ctx(), c, 3, 0, p); });
}

TEST(RecordTest, SlotsEqualAcrossRecords) {
  const RecordOpening a = Alice();
  const std::vector<Scalar> slots = {RecordSlotFromString("x"), RecordSlotFromString("y"),
                                     RecordSlotFromInteger(1000000)};
  const RecordOpening b(slots);
  const Commitment ca = a.Commit(), cb = b.Commit();
  auto proof = ProveSlotsEqual(Ctx(), a, 1, b, 2);
  ASSERT_TRUE(proof.ok());
  EXPECT_TRUE(VerifySlotsEqual(Ctx(), ca, 1, cb, 2, *proof).ok());
  EXPECT_FALSE(VerifySlotsEqual(Ctx(), cb, 2, ca, 1, *proof).ok());
  EXPECT_FALSE(VerifySlotsEqual(Ctx(), ca, 0, cb, 2, *proof).ok());
  EXPECT_EQ(ProveSlotsEqual(Ctx(), a, 0, b, 2).status().code(), Code::kInvalidArgument);
  ExpectFlipsRejected(
      *proof, [&](const RecordProof& p) { return VerifySlotsEqual(Ctx(), ca, 1, cb, 2, p); });
}

TEST(RecordTest, ProofsOfOneKindAreNotAcceptedAsAnother) {
  const RecordOpening a = Alice();
  const Commitment c = a.Commit();
  auto eq = ProveSlotEquals(Ctx(), a, 0, RecordSlotFromInteger(42));
  ASSERT_TRUE(eq.ok());
  EXPECT_EQ(VerifySlotInRange(Ctx(), c, 0, 0, 100, *eq).code(), Code::kInvalidArgument);
  EXPECT_EQ(VerifySlotLessEqual(Ctx(), c, 0, 0, *eq).code(), Code::kInvalidArgument);
}

TEST(RecordTest, DecodingIsStrict) {
  const RecordOpening a = Alice();
  const Commitment c = a.Commit();
  auto proof = ProveSlotEquals(Ctx(), a, 0, RecordSlotFromInteger(42));
  ASSERT_TRUE(proof.ok());
  const Bytes good = proof->Encode();
  EXPECT_FALSE(RecordProof::Decode({}).ok());
  Bytes bad = good;
  bad[0] = 2;
  EXPECT_EQ(RecordProof::Decode(bad).status().code(), Code::kInvalidArgument);
  bad = good;
  bad[1] = 9;
  EXPECT_EQ(RecordProof::Decode(bad).status().code(), Code::kInvalidArgument);
  for (const Bytes& b : {Bytes(good.begin(), good.end() - 1), [&] {
                           Bytes x = good;
                           x.push_back(0);
                           return x;
                         }()}) {
    auto p = RecordProof::Decode(b);
    ASSERT_TRUE(p.ok());  // the header is fine; the body is checked against the statement
    EXPECT_EQ(VerifySlotEquals(Ctx(), c, 0, RecordSlotFromInteger(42), *p).code(),
              Code::kInvalidArgument);
  }
}

TEST(RecordTest, StringSlotsAre248BitHashes) {
  const Scalar s = RecordSlotFromString("alice");
  EXPECT_TRUE(s == RecordSlotFromString("alice"));
  EXPECT_FALSE(s == RecordSlotFromString("alicf"));
  EXPECT_EQ(s.ToBytes()[31], 0);
}

// A moved-from opening holds nothing: its slots and salt are wiped (a copy of the secret would
// otherwise outlive the object it was moved into).
TEST(RecordTest, AMovedFromOpeningIsWiped) {
  RecordOpening a = Alice();
  const Commitment c = a.Commit();
  RecordOpening b = std::move(a);
  for (std::size_t i = 0; i < kRecordSlots; ++i) EXPECT_TRUE(a.slot(i).IsZero()) << i;
  EXPECT_TRUE(a.salt().IsZero());
  EXPECT_TRUE(b.Commit() == c);
  RecordOpening d = Alice();
  d = std::move(b);
  for (std::size_t i = 0; i < kRecordSlots; ++i) EXPECT_TRUE(b.slot(i).IsZero()) << i;
  EXPECT_TRUE(b.salt().IsZero());
  EXPECT_TRUE(d.Commit() == c);
}

}  // namespace
}  // namespace veil::zk
