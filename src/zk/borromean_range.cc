// Borromean range proofs over base-4 digits (include/veil/zk/borromean_range.h,
// docs/notes/borromean_range.md).
#include "veil/zk/borromean_range.h"

#include <algorithm>
#include <string_view>

#include "borromean_range_internal.h"
#include "veil/base/consttime.h"
#include "veil/crypto/keccak.h"
#include "veil/ec/edwards25519.h"

namespace veil::zk {
namespace {

constexpr std::string_view kProofLabel = "veil.zk.borromean-range.v2";
constexpr std::size_t kHeaderSize = 2;  // version, bits

// Digits and ring sizes for a width: k = ceil(bits / 2) digits, base 4 but the last is base 2
// when bits is odd.
std::size_t DigitCount(unsigned bits) { return (bits + 1) / 2; }
std::size_t RingSize(unsigned bits, std::size_t i) {
  return (bits % 2 == 1 && i + 1 == DigitCount(bits)) ? 2 : 4;
}
std::size_t ScalarCount(unsigned bits) { return 4 * (bits / 2) + 2 * (bits % 2); }
// Where ring i's responses start in the proof: every ring before the last has 4.
std::size_t RingOffset(std::size_t i) { return 4 * i; }

// A ring point R enters the hashes as the Edwards encoding (RFC 8032: y and the sign of x) of
// [4]R, not as its ristretto255 encoding. The representatives of one ristretto255 element differ by
// a point of E[4], which [4] removes, so [4]R is a function of the element and determines it ([4]
// is injective on the group of order l): prover and verifier hash the same bytes however each
// computed R. A batch of them costs one field inversion and two doublings a point instead of an
// inverse square root each (docs/notes/borromean_range.md).
std::vector<ec::CompressedEdwardsY> EncodeRingPoints(
    const std::vector<ec::RistrettoPoint>& points) {
  std::vector<ec::EdwardsPoint> times4;
  times4.reserve(points.size());
  for (const auto& p : points) {
    times4.push_back(ec::EdwardsPoint::FromEdwardsUnchecked(p.edwards()).Double().Double());
  }
  return ec::EdwardsPoint::EncodeBatch(times4);
}

// A ring challenge: 128 bits of SHAKE256 over fixed-length fields (tag, statement digest m, the
// 32-byte input, ring i, position j), so no framing is needed.
ec::Scalar RingChallenge(const std::array<std::uint8_t, 32>& m, ByteView input, std::uint32_t i,
                         std::uint32_t j) {
  static constexpr std::string_view kTag = "veil.zk.borromean-range.v2 e";
  crypto::Shake256 h;
  h.Absorb(AsBytes(kTag));
  h.Absorb(m);
  h.Absorb(input);
  std::array<std::uint8_t, 8> ij;
  for (std::size_t b = 0; b < 4; ++b) {
    ij[b] = static_cast<std::uint8_t>(i >> (8 * b));
    ij[4 + b] = static_cast<std::uint8_t>(j >> (8 * b));
  }
  h.Absorb(ij);
  std::array<std::uint8_t, 32> wide{};
  h.Squeeze(MutableByteView(wide.data(), 16));
  return ec::Scalar::FromBytesModOrder(wide);
}

// e0 = SHAKE256(tag || m || R_0 || ... || R_{k-1}), the ring ends in order.
std::array<std::uint8_t, 32> SharedChallenge(const std::array<std::uint8_t, 32>& m,
                                             const std::vector<ec::CompressedEdwardsY>& ends) {
  static constexpr std::string_view kTag = "veil.zk.borromean-range.v2 e0";
  crypto::Shake256 h;
  h.Absorb(AsBytes(kTag));
  h.Absorb(m);
  for (const auto& e : ends) h.Absorb(e.bytes());
  std::array<std::uint8_t, 32> e0;
  h.Squeeze(e0);
  return e0;
}

// j 4^i G for j = 0..3, i = 0..31, computed once.
const std::vector<std::array<ec::RistrettoPoint, 4>>& DigitMultiples() {
  static const std::vector<std::array<ec::RistrettoPoint, 4>> table = [] {
    std::vector<std::array<ec::RistrettoPoint, 4>> t(DigitCount(BorromeanRangeProof::kMaxBits));
    ec::RistrettoPoint unit = ec::RistrettoPoint::Generator();
    for (auto& row : t) {
      row[0] = ec::RistrettoPoint();
      for (std::size_t j = 1; j < 4; ++j) row[j] = row[j - 1] + unit;
      unit = unit.Double().Double();
    }
    return t;
  }();
  return table;
}

// The statement: the proof's label, the width and C. The prover appends it before it forks its
// nonce generator, so that the nonces depend on it (TranscriptRng's rule: a broken RNG still never
// repeats a nonce across two statements).
void BindStatement(Transcript& t, unsigned bits, const ec::CompressedRistretto& commitment) {
  t.AppendMessage("proof", AsBytes(kProofLabel));
  t.AppendU64("bits", bits);
  t.AppendPoint("C", commitment);
}

// The digit commitments, which the nonces produce; then the digest m that every ring hash
// includes.
std::array<std::uint8_t, 32> BindDigits(Transcript& t,
                                        const std::vector<ec::CompressedRistretto>& digits) {
  for (const auto& c : digits) t.AppendPoint("C_i", c);
  std::array<std::uint8_t, 32> m;
  t.ChallengeBytes("m", m);
  return m;
}

// The members P_{i,j} = C_i - j 4^i G of every ring, with C_{k-1} = C - sum of the others.
std::vector<std::array<ec::RistrettoPoint, 4>> RingMembers(
    unsigned bits, const ec::RistrettoPoint& commitment,
    const std::vector<ec::RistrettoPoint>& digits) {
  const std::size_t k = DigitCount(bits);
  const auto& multiples = DigitMultiples();
  std::vector<std::array<ec::RistrettoPoint, 4>> members(k);
  ec::RistrettoPoint last = commitment;
  for (std::size_t i = 0; i < k; ++i) {
    const ec::RistrettoPoint c = i + 1 < k ? digits[i] : last;
    if (i + 1 < k) last -= c;
    for (std::size_t j = 0; j < RingSize(bits, i); ++j) members[i][j] = c - multiples[i][j];
  }
  return members;
}

}  // namespace

std::size_t BorromeanRangeProof::SizeForBits(unsigned bits) {
  VEIL_CHECK_MSG(bits >= 1 && bits <= kMaxBits, "BorromeanRangeProof: bits outside 1..64");
  return kHeaderSize + 32 * (DigitCount(bits) + ScalarCount(bits));
}

Result<BorromeanRangeProof> BorromeanRangeProof::Prove(Transcript& transcript, std::uint64_t value,
                                                       const ec::Scalar& blinding, unsigned bits) {
  if (bits < 1 || bits > kMaxBits) return InvalidArgument("range proof: bits outside 1..64");
  // The range check on the secret value, with only its verdict made public.
  const std::uint64_t high = bits == 64 ? 0 : value >> bits;
  bool in_range = high == 0;
  VEIL_DECLASSIFY(&in_range, sizeof in_range);  // refusing to prove is the public outcome
  if (!in_range) return InvalidArgument("range proof: value does not fit the width");
  return BorromeanRangeInternal::ProveUnchecked(transcript, value, blinding, bits);
}

BorromeanRangeProof BorromeanRangeInternal::ProveUnchecked(
    Transcript& transcript, std::uint64_t value, const ec::Scalar& blinding, unsigned bits,
    const std::span<const std::uint8_t, 32>* randomness) {
  using Proof = BorromeanRangeProof;

  const PedersenGens& gens = PedersenGens::Default();
  const ec::FixedBaseTable& h_table = gens.h_table();
  const std::size_t k = DigitCount(bits);
  const ec::RistrettoPoint commitment =
      gens.Commit(ec::Scalar::FromUint64(value), blinding).point();

  // The statement first, then nonces from the transcript, the witness and fresh randomness
  // (TranscriptRng).
  ec::CompressedRistretto c_enc = commitment.Encode();
  VEIL_DECLASSIFY(&c_enc, sizeof c_enc);  // the statement
  BindStatement(transcript, bits, c_enc);
  TranscriptRng rng = transcript.BuildRng();
  rng.AppendWitness("v", ec::Scalar::FromUint64(value)).AppendWitness("r", blinding);
  if (randomness != nullptr) {
    rng.FinalizeWithRandomness(*randomness);
  } else {
    rng.Finalize();
  }

  // Digits, their blindings (summing to r) and commitments C_i = d_i 4^i G + r_i H, with d_i 4^i G
  // taken from the table by masked selection.
  const auto& multiples = DigitMultiples();
  std::vector<std::uint64_t> d(k);
  std::vector<ec::Scalar> r(k);
  Proof proof;
  proof.bits_ = bits;
  ec::Scalar r_sum;
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t n = RingSize(bits, i);
    d[i] = (value >> (2 * i)) & (n - 1);
    if (i + 1 < k) {
      r[i] = rng.NextScalar();
      r_sum += r[i];
      ec::RistrettoPoint digit;
      for (std::size_t p = 1; p < n; ++p) {
        digit = ec::RistrettoPoint::Select(digit, multiples[i][p], CtEq64(d[i], p));
      }
      ec::CompressedRistretto enc = (digit + h_table.Mul(r[i])).Encode();
      VEIL_DECLASSIFY(&enc, sizeof enc);  // a digit commitment is part of the proof
      proof.digit_commitments_.push_back(enc);
      // Decoded again, so the proof object holds public data only (the computed point's
      // coordinates carry more than the element).
      Result<ec::RistrettoPoint> point = enc.Decode();
      VEIL_CHECK(point.ok());
      proof.digit_points_.push_back(*point);
    } else {
      r[i] = blinding - r_sum;
    }
  }
  const std::array<std::uint8_t, 32> m = BindDigits(transcript, proof.digit_commitments_);
  const auto members = RingMembers(bits, commitment, proof.digit_points_);

  // The rings run in lock step, slot by slot, so that each slot's k ring points are encoded as one
  // batch. Ring sizes depend on the width only, so which rings take part in a slot is public.
  // Ring i's responses (positions 0..n_i - 1) are written by masked selection.
  const std::size_t widest = RingSize(bits, 0);
  proof.s_.assign(ScalarCount(bits), ec::Scalar());
  std::vector<ec::Scalar> nonce(k);
  std::vector<ec::RistrettoPoint> big_r(k);

  // Each ring forges n_i - 1 positions, each with a fresh response sigma and its sigma H, computed
  // here once: slot t before e0 takes pool entry t - 1, slot t after e0 takes entry n_i - 2 - t.
  // The real slots of the two phases (t <= n_i - 1 - d_i before, t < d_i after) thus take disjoint
  // entries, each entry is a real slot's exactly once, and a dummy slot reuses an entry and
  // discards its result. So a ring costs n_i multiplications by H, not 2 n_i - 1.
  std::vector<std::array<ec::Scalar, 3>> forged(k);
  std::vector<std::array<ec::RistrettoPoint, 3>> forged_h(k);
  // Before e0: R = k_i H at position d_i, then the steps d_i + 1 .. n_i - 1. Every ring runs
  // n_i - 1 step slots; slot t is position d_i + t, a discarded dummy past the end.
  for (std::size_t i = 0; i < k; ++i) {
    nonce[i] = rng.NextScalar();
    big_r[i] = h_table.Mul(nonce[i]);
    for (std::size_t q = 0; q + 1 < RingSize(bits, i); ++q) {
      forged[i][q] = rng.NextScalar();
      forged_h[i][q] = h_table.Mul(forged[i][q]);
    }
  }
  std::vector<ec::CompressedEdwardsY> encoded = EncodeRingPoints(big_r);
  for (std::size_t t = 1; t < widest; ++t) {
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t n = RingSize(bits, i);
      if (t >= n) continue;
      ec::Scalar* s = proof.s_.data() + RingOffset(i);
      const std::uint64_t j = d[i] + t;
      const std::uint64_t active = CtLt64(j, n);
      ec::RistrettoPoint member;
      for (std::size_t p = 0; p < n; ++p) {
        member = ec::RistrettoPoint::Select(member, members[i][p], CtEq64(j, p));
      }
      const ec::Scalar e = RingChallenge(m, encoded[i].bytes(), static_cast<std::uint32_t>(i),
                                         static_cast<std::uint32_t>(j));
      const ec::Scalar& s_new = forged[i][t - 1];
      const ec::RistrettoPoint next = forged_h[i][t - 1] + ec::MulShort(e, member);
      big_r[i] = ec::RistrettoPoint::Select(big_r[i], next, active);
      for (std::size_t p = 0; p < n; ++p) {
        s[p] = ec::Scalar::Select(s[p], s_new, active & CtEq64(j, p));
      }
    }
    encoded = EncodeRingPoints(big_r);
  }
  // The ring ends: the verifier recomputes every one.
  for (auto& end : encoded) VEIL_DECLASSIFY(&end, sizeof end);
  proof.e0_ = SharedChallenge(m, encoded);

  // After e0: positions 0 .. d_i - 1 (slot t is position t, a dummy from d_i on), then close each
  // ring at d_i with s = k_i - e_{i,d_i} r_i.
  std::vector<ec::Scalar> e(k);
  for (std::size_t i = 0; i < k; ++i) {
    e[i] = RingChallenge(m, proof.e0_, static_cast<std::uint32_t>(i), 0);
  }
  std::vector<ec::RistrettoPoint> next(k);
  for (std::size_t t = 0; t + 1 < widest; ++t) {
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t n = RingSize(bits, i);
      if (t + 1 >= n) continue;
      ec::Scalar* s = proof.s_.data() + RingOffset(i);
      next[i] = forged_h[i][n - 2 - t] + ec::MulShort(e[i], members[i][t]);
      s[t] = ec::Scalar::Select(s[t], forged[i][n - 2 - t], CtLt64(t, d[i]));
    }
    encoded = EncodeRingPoints(next);
    for (std::size_t i = 0; i < k; ++i) {
      if (t + 1 >= RingSize(bits, i)) continue;
      const ec::Scalar e_next = RingChallenge(m, encoded[i].bytes(), static_cast<std::uint32_t>(i),
                                              static_cast<std::uint32_t>(t + 1));
      e[i] = ec::Scalar::Select(e[i], e_next, CtLt64(t, d[i]));
    }
  }
  for (std::size_t i = 0; i < k; ++i) {
    ec::Scalar* s = proof.s_.data() + RingOffset(i);
    const ec::Scalar closing = nonce[i] - e[i] * r[i];
    for (std::size_t p = 0; p < RingSize(bits, i); ++p) {
      s[p] = ec::Scalar::Select(s[p], closing, CtEq64(d[i], p));
    }
    nonce[i].Wipe();
    r[i].Wipe();
    e[i].Wipe();
    d[i] = 0;
  }
  // The responses are the proof: uniformly random at every position whatever the digits.
  for (auto& x : proof.s_) VEIL_DECLASSIFY(&x, sizeof x);
  return proof;
}

Status BorromeanRangeProof::Verify(Transcript& transcript, const Commitment& commitment,
                                   unsigned bits) const {
  if (bits < 1 || bits > kMaxBits) return InvalidArgument("range proof: bits outside 1..64");
  // The width is the verifier's: a proof of another width proves another statement.
  if (bits != bits_) return InvalidArgument("range proof: the proof is for another width");
  const std::size_t k = DigitCount(bits_);
  BindStatement(transcript, bits_, commitment.Encode());
  const std::array<std::uint8_t, 32> m = BindDigits(transcript, digit_commitments_);
  const auto members = RingMembers(bits_, commitment.point(), digit_points_);
  const ec::FixedBaseTable& h_table = PedersenGens::Default().h_table();
  // The rings in lock step, as the prover runs them, so each position's points encode as a batch.
  const std::size_t widest = RingSize(bits_, 0);
  std::vector<ec::Scalar> e(k);
  for (std::size_t i = 0; i < k; ++i) {
    e[i] = RingChallenge(m, e0_, static_cast<std::uint32_t>(i), 0);
  }
  std::vector<ec::RistrettoPoint> points(k);
  std::vector<ec::CompressedEdwardsY> ends(k);
  for (std::size_t j = 0; j < widest; ++j) {
    for (std::size_t i = 0; i < k; ++i) {
      if (j >= RingSize(bits_, i)) continue;
      points[i] = h_table.Mul(s_[RingOffset(i) + j]) + members[i][j].MulVartime(e[i]);
    }
    const std::vector<ec::CompressedEdwardsY> encoded = EncodeRingPoints(points);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t n = RingSize(bits_, i);
      if (j + 1 < n) {
        e[i] = RingChallenge(m, encoded[i].bytes(), static_cast<std::uint32_t>(i),
                             static_cast<std::uint32_t>(j + 1));
      } else if (j + 1 == n) {
        ends[i] = encoded[i];
      }
    }
  }
  if (SharedChallenge(m, ends) != e0_) return VerificationFailed();
  return Status::Ok();
}

Bytes BorromeanRangeProof::Encode() const {
  Bytes out;
  out.reserve(SizeForBits(bits_));
  out.push_back(kVersion);
  out.push_back(static_cast<std::uint8_t>(bits_));
  out.insert(out.end(), e0_.begin(), e0_.end());
  for (const auto& c : digit_commitments_)
    out.insert(out.end(), c.bytes().begin(), c.bytes().end());
  for (const auto& s : s_) {
    const ec::Scalar::Bytes b = s.ToBytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

Result<BorromeanRangeProof> BorromeanRangeProof::Decode(ByteView bytes) {
  if (bytes.size() < kHeaderSize) return InvalidArgument("range proof: truncated");
  if (bytes[0] != kVersion) return InvalidArgument("range proof: unknown version");
  const unsigned bits = bytes[1];
  if (bits < 1 || bits > kMaxBits) return InvalidArgument("range proof: bits outside 1..64");
  if (bytes.size() != SizeForBits(bits)) return InvalidArgument("range proof: wrong length");
  BorromeanRangeProof proof;
  proof.bits_ = bits;
  std::size_t pos = kHeaderSize;
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(pos), 32, proof.e0_.begin());
  pos += 32;
  for (std::size_t i = 0; i + 1 < DigitCount(bits); ++i, pos += 32) {
    VEIL_ASSIGN_OR_RETURN(ec::CompressedRistretto enc,
                          ec::CompressedRistretto::FromBytes(bytes.subspan(pos, 32)));
    VEIL_ASSIGN_OR_RETURN(ec::RistrettoPoint point, enc.Decode());
    proof.digit_commitments_.push_back(enc);
    proof.digit_points_.push_back(point);
  }
  for (std::size_t i = 0; i < ScalarCount(bits); ++i, pos += 32) {
    VEIL_ASSIGN_OR_RETURN(ec::Scalar s, ec::Scalar::FromCanonical(bytes.subspan(pos, 32)));
    proof.s_.push_back(s);
  }
  return proof;
}

}  // namespace veil::zk
