// Record statements: what Kalypso's `prove` shows about a committed record without opening it
// (docs/notes/record.md).
//
// A record is up to kRecordSlots field slots and a salt, committed as one vector Pedersen
// commitment
//
//     C = sum_i m_i G_i + salt H        G_i = PedersenVectorGenerator(i), H = PedersenGeneratorH()
//
// Numbers enter a slot as integers (RecordSlotFromInteger), strings as a 248-bit hash
// (RecordSlotFromString); unused slots hold zero. Each proof is bound, through its transcript, to
// the commitment(s) and a RecordContext (the record key, the statement's text, the verifier's
// nonce), so it cannot be replayed for another record, statement or verifier. Every proof has
// knowledge of the whole opening behind it; only the chosen slot takes part in the statement, and
// nothing else about the record is revealed.
//
//   SlotEquals      slot k = a public value                   sigma proof
//   SlotInRange     lo <= slot k <= hi (integers)             V = m_k G + r H, a sigma proof that V
//                                                             and C share m_k, and one aggregated
//                                                             Bulletproof over V - lo G, hi G - V
//   SlotInSet       slot k is one of public values a_0..      V as above, and a one-of-many proof
//                                                             that some V - a_i G opens to zero
//   SlotLessEqual   slot i <= slot j (integers < 2^64)        V_a = m_i G + r_a H and
//                                                             V_d = (m_j - m_i) G + r_d H linked to
//                                                             C, and a Bulletproof (64 bits, m = 2)
//   SlotsEqual      slot a of record 1 = slot b of record 2   sigma proof over both openings
//
// No trusted setup and no verification key: the generators come from hash-to-group.
//
// Encoding: version (1) || kind (1) || the parts in the order above, each strict (canonical points
// and scalars, exact lengths given by the statement). Sizes are in docs/notes/record.md.
//
// Constant time: proving is constant time in the opening (slots, salt) and the blindings; the
// range and set proofs use the constant-time provers of zk/bulletproofs.h and zk/one_of_many.h.
// Verification handles public data.
//
// Thread safety: openings, commitments and proofs are values; RecordGens() is built once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/scalar.h"
#include "veil/zk/pedersen.h"

namespace veil::zk {

inline constexpr std::size_t kRecordSlots = 8;

// A number as a slot value.
ec::Scalar RecordSlotFromInteger(std::uint64_t v);
// A string as a slot value: the first 31 bytes of SHAKE256("veil.zk.record.string.v1" || s),
// a 248-bit integer (below l, so distinct hashes are distinct slots).
ec::Scalar RecordSlotFromString(std::string_view s);

// G_0..G_7 and H with their fixed-base tables, built once.
const VectorPedersenGens& RecordGens();

// The secret opening of a record commitment. Move-only; wiped on destruction and when moved from
// (a moved-from opening is all zeros, the opening of the zero record with a zero salt).
class RecordOpening {
 public:
  // Slots beyond those given are zero; a fresh random salt.
  explicit RecordOpening(std::span<const ec::Scalar> slots);
  RecordOpening(std::span<const ec::Scalar> slots, const ec::Scalar& salt);
  RecordOpening(RecordOpening&& o) noexcept;
  RecordOpening& operator=(RecordOpening&& o) noexcept;
  RecordOpening(const RecordOpening&) = delete;
  RecordOpening& operator=(const RecordOpening&) = delete;
  ~RecordOpening();

  const ec::Scalar& slot(std::size_t i) const { return slots_.at(i); }
  const ec::Scalar& salt() const { return salt_; }
  // C = sum m_i G_i + salt H, constant time.
  Commitment Commit() const;

 private:
  void WipeSecrets();
  std::array<ec::Scalar, kRecordSlots> slots_{};
  ec::Scalar salt_;
};

// What every proof is bound to besides the commitment(s).
struct RecordContext {
  ByteView record_key;
  std::string_view statement;
  ByteView verifier_nonce;
};

// A proof of one record statement; the kind is part of the encoding.
class RecordProof {
 public:
  enum class Kind : std::uint8_t {
    kSlotEquals = 1,
    kSlotInRange = 2,
    kSlotInSet = 3,
    kSlotLessEqual = 4,
    kSlotsEqual = 5,
  };
  static constexpr std::uint8_t kVersion = 1;

  Kind kind() const { return kind_; }
  Bytes Encode() const { return bytes_; }
  // Checks the header; the parts are decoded strictly against the statement by the verifier.
  static Result<RecordProof> Decode(ByteView bytes);

 private:
  friend struct RecordInternal;
  Kind kind_ = Kind::kSlotEquals;
  Bytes bytes_;
};

// Each Prove returns kInvalidArgument for a slot index out of range or a statement that the
// opening does not satisfy (decided in constant time; only that verdict is revealed). Each
// Verify returns Ok, VerificationFailed(), or kInvalidArgument for a malformed proof or statement.

Result<RecordProof> ProveSlotEquals(const RecordContext& ctx, const RecordOpening& opening,
                                    std::size_t slot, const ec::Scalar& value);
Status VerifySlotEquals(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                        const ec::Scalar& value, const RecordProof& proof);

// lo <= slot <= hi as integers; the range proof covers the smallest width in {8, 16, 32, 64} that
// holds hi - lo.
Result<RecordProof> ProveSlotInRange(const RecordContext& ctx, const RecordOpening& opening,
                                     std::size_t slot, std::uint64_t lo, std::uint64_t hi);
Status VerifySlotInRange(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                         std::uint64_t lo, std::uint64_t hi, const RecordProof& proof);

// 1 <= set.size() <= 4096.
Result<RecordProof> ProveSlotInSet(const RecordContext& ctx, const RecordOpening& opening,
                                   std::size_t slot, std::span<const ec::Scalar> set);
Status VerifySlotInSet(const RecordContext& ctx, const Commitment& c, std::size_t slot,
                       std::span<const ec::Scalar> set, const RecordProof& proof);

// slot_i <= slot_j, both integers below 2^64.
Result<RecordProof> ProveSlotLessEqual(const RecordContext& ctx, const RecordOpening& opening,
                                       std::size_t slot_i, std::size_t slot_j);
Status VerifySlotLessEqual(const RecordContext& ctx, const Commitment& c, std::size_t slot_i,
                           std::size_t slot_j, const RecordProof& proof);

// slot_a of record 1 equals slot_b of record 2, revealing neither.
Result<RecordProof> ProveSlotsEqual(const RecordContext& ctx, const RecordOpening& record1,
                                    std::size_t slot_a, const RecordOpening& record2,
                                    std::size_t slot_b);
Status VerifySlotsEqual(const RecordContext& ctx, const Commitment& c1, std::size_t slot_a,
                        const Commitment& c2, std::size_t slot_b, const RecordProof& proof);

}  // namespace veil::zk
