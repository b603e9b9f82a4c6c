// One-of-many proofs (Groth-Kohlweiss 2015, n-ary form of Bootle et al. 2015): among N public
// points C_0..C_{N-1} the prover knows an index l and a scalar r with C_l = r H, where H is the
// Pedersen blinding generator of PedersenGens::Default() (docs/notes/one_of_many.md). The proof
// reveals nothing about l or r and has O(log N) size: the index is written in base n with m digits
// (n^m >= N; a set is padded to n^m by repeating its last member), and the proof is
//
//     A, B, C, D, G_0..G_{m-1}        (m + 4 points)
//     f_{j,i} for j < m, 1 <= i < n, z_A, z_C, z     (m (n - 1) + 3 scalars)
//
// 32 (m n + 7) bytes. Uses: membership of a committed asset among public assets (prove that
// C - A_i opens to zero for one i), vetting against a group.
//
// A OneOfManySet holds the members, their encodings, a digest and the parameters (N, n, m); the
// base n is chosen per N by OneOfManyParams::Default (the cheapest prover among bases whose proof
// is within 20% of the smallest, docs/notes/one_of_many.md) unless the caller fixes it. Prover and
// verifier must use the same parameters; they are bound in the transcript.
//
// Transcript: Prove and Verify append to the caller's transcript (which holds the caller's
// protocol and context, docs/notes/transcript.md) the protocol "veil.zk.one-of-many" v1, N, n, m,
// the set's digest, A, B, C, D, G_0..G_{m-1}, then draw the challenge x.
//
// Constant time: proving is constant time in l, r and every nonce (digits of l computed
// arithmetically; the sums over the set by ec::MultiScalarMulTable); the proof is public once
// computed. Verification (one MultiScalarMulVartime over the whole check, equations weighted by
// random 128-bit scalars) handles public data only.
//
// Thread safety: sets, parameters and proofs are immutable values once built; the generators are
// built once under a function-local static. A OneOfManyBatchVerifier is single-threaded.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

// The shape of a proof over N members: base n, m digits, n^m >= N.
struct OneOfManyParams {
  static constexpr std::size_t kMaxSize = 4096;
  static constexpr std::size_t kMinBase = 2;
  static constexpr std::size_t kMaxBase = 16;

  std::size_t N = 0;
  std::size_t n = 0;
  std::size_t m = 0;

  // 1 <= N <= kMaxSize, kMinBase <= n <= kMaxBase, m the smallest m >= 1 with n^m >= N;
  // kInvalidArgument otherwise.
  static Result<OneOfManyParams> Create(std::size_t N, std::size_t n);
  // The base chosen for one-of-many proofs over N members (kInvalidArgument for N out of range).
  static Result<OneOfManyParams> Default(std::size_t N);

  // n^m, the size of the padded set.
  std::size_t PaddedSize() const;
  // 32 (m n + 7).
  std::size_t ProofSize() const { return 32 * (m * n + 7); }

  friend bool operator==(const OneOfManyParams&, const OneOfManyParams&) = default;
};

// The public set C_0..C_{N-1} with its parameters and digest.
class OneOfManySet {
 public:
  // `base` 0 picks OneOfManyParams::Default(N). kInvalidArgument for an empty or too large set
  // or a bad base. FromPoints encodes every member (one inverse square root each); Decode decodes
  // (kInvalidArgument for any non-canonical member).
  static Result<OneOfManySet> FromPoints(std::span<const ec::RistrettoPoint> members,
                                         std::size_t base = 0);
  static Result<OneOfManySet> Decode(std::span<const ec::CompressedRistretto> members,
                                     std::size_t base = 0);

  std::size_t size() const { return points_.size(); }
  const OneOfManyParams& params() const { return params_; }
  const std::vector<ec::RistrettoPoint>& points() const { return points_; }
  const std::vector<ec::CompressedRistretto>& encodings() const { return encodings_; }
  // SHAKE256 through a Transcript "veil.zk.one-of-many.set" v1 over N and every encoding in
  // order; what the proof transcript binds.
  const std::array<std::uint8_t, 32>& digest() const { return digest_; }

 private:
  OneOfManySet() = default;
  OneOfManyParams params_;
  std::vector<ec::RistrettoPoint> points_;
  std::vector<ec::CompressedRistretto> encodings_;
  std::array<std::uint8_t, 32> digest_{};
};

class OneOfManyProof {
 public:
  // Exactly params.ProofSize() bytes: the m + 4 points as canonical encodings, then the
  // m (n - 1) + 3 scalars canonical (layout above). kInvalidArgument otherwise.
  static Result<OneOfManyProof> Decode(ByteView bytes, const OneOfManyParams& params);
  Bytes Encode() const;
  const OneOfManyParams& params() const { return params_; }

 private:
  friend struct OneOfManyInternal;
  OneOfManyProof() = default;
  OneOfManyParams params_;
  std::vector<ec::CompressedRistretto> encodings_;  // A, B, C, D, G_0..G_{m-1}
  std::vector<ec::RistrettoPoint> points_;          // the same, decoded
  std::vector<ec::Scalar> f_;                       // f_{j,i}, j < m, 1 <= i < n, row by row
  ec::Scalar z_a_, z_c_, z_;
};

// Proves that set.points()[l] = r H for H = PedersenGens::Default().H(). kInvalidArgument for
// l >= N (the verdict of that comparison is the only thing about l that is branched on). A wrong
// r gives a proof that does not verify.
Result<OneOfManyProof> OneOfManyProve(Transcript& transcript, const OneOfManySet& set,
                                      std::size_t l, const ec::Scalar& r);

// Ok, VerificationFailed(), or kInvalidArgument when the proof's parameters differ from the
// set's.
Status OneOfManyVerify(Transcript& transcript, const OneOfManySet& set,
                       const OneOfManyProof& proof);

// Verifies many proofs with one multi-scalar multiplication, every equation of every proof
// weighted by a fresh random 128-bit scalar; members shared between sets and the generators are
// merged. A batch with a bad proof passes with probability at most 2^-128.
class OneOfManyBatchVerifier {
 public:
  OneOfManyBatchVerifier();
  ~OneOfManyBatchVerifier();
  OneOfManyBatchVerifier(OneOfManyBatchVerifier&&) noexcept;
  OneOfManyBatchVerifier& operator=(OneOfManyBatchVerifier&&) noexcept;

  // Derives the challenge from `transcript` (as OneOfManyVerify does) and adds the proof's
  // equations. A parameter mismatch is kInvalidArgument here and fails the whole batch.
  Status Add(Transcript& transcript, const OneOfManySet& set, const OneOfManyProof& proof);
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
