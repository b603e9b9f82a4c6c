// Bulletproofs range proofs (Bünz, Bootle, Boneh, Poelstra, Wuille and Maxwell, "Bulletproofs:
// Short Proofs for Confidential Transactions and More", IEEE S&P 2018, sec. 4.1-4.3), over
// ordinary Pedersen commitments V = v G + gamma H of zk::PedersenGens::Default()
// (docs/notes/bulletproofs.md has the math, the transcript layout and the costs).
//
// A range proof shows that each of m commitments V_0..V_{m-1} opens to a value in [0, 2^n), for any
// width n from 1 to 64 and any m from 1 to kRangeProofMaxValues (one aggregated proof of size
// logarithmic in n m). A width that is not a power of two is proven over PaddedRangeBits(n) bits
// whose power vector is 2^i below n and 0 above, so the proof has the padded width's size. A count
// m that is not a power of two is padded to the next power of two M with commitments the verifier
// fixes itself (the identity, value 0 and blinding 0); the note shows why that is sound. The
// generators G_i, H_i (i < n M) are hash-to-group points with the DST kBulletproofsDst, so nobody
// knows a discrete-log relation between them.
//
// Transcript: ProveRange and VerifyRange append the protocol label kRangeProofProtocol (which
// carries the version), n, m, the commitments, then the proof's messages as they are produced,
// drawing y, z, x, w and one u per inner-product round; both sides end in the same state, so
// proofs can be chained in one transcript. The caller appends its own context first.
//
// Encoding (strict, 32 (9 + 2 log2(np M)) bytes, np = PaddedRangeBits(n), 672 for one 64-bit
// value): A, S, T_1, T_2 as canonical ristretto255 encodings, t_hat, tau_x, mu as canonical
// scalars, then L_j, R_j for each round, then a, b. The format is versioned by the protocol label
// in the transcript (a proof of another version does not verify) and determined by its length; an
// envelope above may add a tag. Decode rejects any other length, non-canonical scalars and points
// (kInvalidArgument); a proof that decodes but does not verify gets VerificationFailed() and
// nothing more.
//
// Verification is one variable-time multi-scalar multiplication (the inner-product argument
// folded into the range check, with a random weight joining the two equations);
// RangeProofBatchVerifier checks many proofs of any n and m in one, with random 128-bit weights.
//
// Constant time: ProveRange is constant time in the values, the blindings and every secret it
// derives (bits, nonces, the inner-product vectors); only the verdict "every value in range" and
// the proof's messages are made public. Verification handles public data and is variable time.
//
// Thread safety: proofs are values. The generators are computed on first use behind a mutex and
// then shared read-only, so every function here may be called from several threads at once; a
// RangeProofBatchVerifier is single-threaded.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

// The first message of every range proof's transcript: protocol and version in one label.
inline constexpr std::string_view kRangeProofProtocol = "veil.zk.bulletproofs.range.v1";
// The hash_to_ristretto255 DST of the vector generators (RFC 9380 sec. 3.1).
inline constexpr std::string_view kBulletproofsDst =
    "veil.zk.bulletproofs.v1-ristretto255_XMD:SHA-512_R255MAP_RO_";
// At most this many values per proof; with n = 64 the generators then number 64 * 64 of each kind.
inline constexpr std::size_t kRangeProofMaxValues = 64;

// Any bit width n from 1 to 64.
constexpr bool IsSupportedRangeBits(std::size_t n) { return n >= 1 && n <= 64; }
// The proof's vectors hold PaddedRangeBits(n) entries a value: n rounded up to a power of two, at
// least 8. Entries from n up are proven to be bits but weigh 0 in the value.
constexpr std::size_t PaddedRangeBits(std::size_t n) { return n <= 8 ? 8 : std::bit_ceil(n); }
// The encoded size of a proof for m values of n bits, 32 (9 + 2 log2(PaddedRangeBits(n) M)) with
// M = m rounded up to a power of two; 0 if n or m is unsupported.
std::size_t RangeProofSize(std::size_t n, std::size_t m);

// G_i = HashToGroup("G" || u32_be(i), kBulletproofsDst) and H_i likewise with "H", recomputed on
// every call (the proofs use a cached copy).
ec::RistrettoPoint BulletproofsGeneratorG(std::uint32_t i);
ec::RistrettoPoint BulletproofsGeneratorH(std::uint32_t i);

class RangeProof {
 public:
  // log2(np M) for np = 8 and M = 1 up to np = 64 and M = 64.
  static constexpr std::size_t kMinRounds = 3;
  static constexpr std::size_t kMaxRounds = 12;

  // Any well-formed proof: 32 (9 + 2 k) bytes with kMinRounds <= k <= kMaxRounds, every point a
  // canonical encoding of an element, every scalar below l. kInvalidArgument otherwise.
  static Result<RangeProof> Decode(ByteView bytes);
  // The same, and the length must be RangeProofSize(n, m).
  static Result<RangeProof> Decode(ByteView bytes, std::size_t n, std::size_t m);
  Bytes Encode() const;

  // log2(np M): the number of inner-product rounds.
  std::size_t rounds() const { return L_.size(); }
  std::size_t size() const { return 32 * (9 + 2 * rounds()); }

  // The messages, named as in the paper.
  const ec::CompressedRistretto& A() const { return A_; }
  const ec::CompressedRistretto& S() const { return S_; }
  const ec::CompressedRistretto& T1() const { return T1_; }
  const ec::CompressedRistretto& T2() const { return T2_; }
  const ec::Scalar& t_hat() const { return t_hat_; }
  const ec::Scalar& tau_x() const { return tau_x_; }
  const ec::Scalar& mu() const { return mu_; }
  const std::vector<ec::CompressedRistretto>& L() const { return L_; }
  const std::vector<ec::CompressedRistretto>& R() const { return R_; }
  const ec::Scalar& a() const { return a_; }
  const ec::Scalar& b() const { return b_; }

 private:
  friend struct RangeProofInternal;
  ec::CompressedRistretto A_, S_, T1_, T2_;
  ec::Scalar t_hat_, tau_x_, mu_;
  std::vector<ec::CompressedRistretto> L_, R_;
  ec::Scalar a_, b_;
  // The decoded points, in the order A, S, T1, T2, L_0, R_0, L_1, R_1, ...
  std::vector<ec::RistrettoPoint> points_;
};

struct RangeProofWithCommitments {
  RangeProof proof;
  // V_j = v_j G + gamma_j H, in the order of the values.
  std::vector<Commitment> commitments;
};

// Proves that every values[j] lies in [0, 2^n) and returns the proof with the commitments
// V_j = values[j] G + blindings[j] H, appending to `transcript`. kInvalidArgument if n is not
// supported, the number of values is 0 or above kRangeProofMaxValues, the spans differ in length,
// or a value is 2^n or more (decided in constant time; only that verdict is revealed). Nonces
// come from a TranscriptRng over the statement, the witness and 32 fresh random bytes.
Result<RangeProofWithCommitments> ProveRange(Transcript& transcript, std::size_t n,
                                             std::span<const ec::Scalar> values,
                                             std::span<const ec::Scalar> blindings);
// The same with the nonce randomness given (known-answer tests; see TranscriptRng).
Result<RangeProofWithCommitments> ProveRangeWithRandomness(
    Transcript& transcript, std::size_t n, std::span<const ec::Scalar> values,
    std::span<const ec::Scalar> blindings, std::span<const std::uint8_t, 32> randomness);

// Ok if `proof` shows that every commitment opens to a value in [0, 2^n); VerificationFailed()
// otherwise. kInvalidArgument if n or the number of commitments is unsupported or the proof's
// rounds() is not log2(np M). Uses a random weight from the CSPRNG (a bad proof passes with
// probability at most 2^-128).
Status VerifyRange(Transcript& transcript, std::size_t n, std::span<const Commitment> commitments,
                   const RangeProof& proof);

// Verifies many range proofs (any mix of n and m) with one multi-scalar multiplication: each
// proof's two equations get independent random 128-bit weights, and the coefficients of the
// shared generators (G_i, H_i, G, H) are summed so that each appears once. A batch with a bad
// proof is rejected except with probability at most 2^-128 (docs/notes/bulletproofs.md); a failed
// batch does not say which proof was bad.
class RangeProofBatchVerifier {
 public:
  RangeProofBatchVerifier();
  ~RangeProofBatchVerifier();
  RangeProofBatchVerifier(RangeProofBatchVerifier&&) noexcept;
  RangeProofBatchVerifier& operator=(RangeProofBatchVerifier&&) noexcept;

  // Replays the proof's transcript (as VerifyRange does) and adds its equations. An error here
  // (kInvalidArgument as in VerifyRange, or VerificationFailed() for a zero challenge) also makes
  // Verify() fail.
  Status Add(Transcript& transcript, std::size_t n, std::span<const Commitment> commitments,
             const RangeProof& proof);
  std::size_t size() const { return count_; }
  // Ok if every proof added verifies (an empty batch is ok), VerificationFailed() otherwise, or
  // the first error of Add.
  Status Verify() const;

  struct Accumulator;

 private:
  std::unique_ptr<Accumulator> acc_;
  std::size_t count_ = 0;
  Status first_error_;
};

}  // namespace veil::zk
