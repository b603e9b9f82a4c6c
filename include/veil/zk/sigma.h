// Sigma protocols for linear relations, made non-interactive with the transcript
// (docs/notes/sigma.md).
//
// A LinearRelation is a system of equations between public points and secret scalars:
//
//     P_j = sum_k x_{i(j,k)} G_{j,k}        j = 0 .. n-1
//
// where every P_j and G_{j,k} is a public point of the relation and the x_i are m secret scalars,
// which may appear in several equations (a shared witness is how equality of discrete logs is
// expressed). Prove gives a proof of knowledge of x_0..x_{m-1} satisfying every equation (Maurer's
// unified sigma protocol): nonces k_i, commitments A_j = sum_k k_{i(j,k)} G_{j,k}, challenge c from
// the transcript, responses s_i = k_i + c x_i. The verifier checks
//
//     sum_k s_{i(j,k)} G_{j,k} = A_j + c P_j        for every j.
//
// Proof form: commitment-response (A_0..A_{n-1}, s_0..s_{m-1}), not challenge-response (c, s).
// Each check is then a linear equation in public points, so a batch of proofs of any relations
// is verified by one MultiScalarMulVartime after weighting every equation by a random scalar
// (SigmaBatchVerifier). It costs n - 1 more group elements than the (c, s) form.
//
// Transcript: Prove and Verify append, in order, the relation's label, its shape (counts and the
// index structure of every equation), every public point, every commitment A_j, then draw c. The
// caller appends its context (session, parties) first, the same on both sides.
//
// Encoding (fixed layout, no header; the relation fixes the sizes): the n commitments as canonical
// 32-byte ristretto255 encodings, then the m responses as canonical 32-byte scalars, 32 (n + m)
// bytes. Decode rejects a wrong length, a non-canonical or invalid point and a scalar >= l.
//
// Constant time: proving is constant time in the witness and nonces (nonces from TranscriptRng;
// commitments by BasepointMul, FixedBaseTable::Mul or constant-time variable-base multiplication,
// as the relation's point was added); the commitments and responses are public once computed.
// Verification handles public data only and is variable time.
//
// Thread safety: relations and proofs are values; a SigmaBatchVerifier is single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

struct ScalarVar {
  std::uint32_t index;
};
struct PointVar {
  std::uint32_t index;
};
// One x_i G_{j,k} of an equation's right-hand side.
struct Term {
  ScalarVar scalar;
  PointVar point;
};

class LinearRelation {
 public:
  static constexpr std::size_t kMaxScalars = 1024;
  static constexpr std::size_t kMaxPoints = 4096;
  static constexpr std::size_t kMaxEquations = 1024;

  // `label` (1..255 bytes) names the protocol in the transcript, e.g. "veil.zk.dleq".
  explicit LinearRelation(std::string_view label);

  // A secret witness scalar x_i.
  ScalarVar AddScalar();
  // A public point; proving multiplies it by a nonce with constant-time variable-base
  // multiplication.
  PointVar AddPoint(const ec::RistrettoPoint& p);
  // A public point with a fixed-base table (a generator used often): proving uses the table.
  PointVar AddPoint(const ec::FixedBaseTable& table);
  // The standard generator B: proving uses BasepointMul.
  PointVar AddBasepoint();
  // A public point from its encoding (kInvalidArgument if it does not decode).
  Result<PointVar> AddPointEncoding(const ec::CompressedRistretto& encoding);

  // P_lhs = sum over rhs of x_scalar G_point. Variables must come from this relation (anything
  // else is a programming error and aborts).
  void AddEquation(PointVar lhs, std::vector<Term> rhs);

  // kInvalidArgument unless: at least one equation, every equation has a term, every scalar
  // appears in some equation (else its response would be unconstrained and proofs malleable),
  // and the sizes are within the limits above.
  Status Validate() const;

  const std::string& label() const { return label_; }
  std::size_t num_scalars() const { return num_scalars_; }
  std::size_t num_points() const { return points_.size(); }
  std::size_t num_equations() const { return equations_.size(); }
  // The size of a proof for this relation: 32 (num_equations + num_scalars).
  std::size_t ProofSize() const { return 32 * (num_equations() + num_scalars()); }

  struct Point {
    ec::RistrettoPoint point;
    std::optional<ec::CompressedRistretto> encoding;  // filled on demand when absent
    std::optional<ec::FixedBaseTable> table;
    bool basepoint = false;
  };
  struct Equation {
    std::uint32_t lhs;
    std::vector<Term> rhs;
  };
  const std::vector<Point>& points() const { return points_; }
  const std::vector<Equation>& equations() const { return equations_; }

 private:
  std::string label_;
  std::uint32_t num_scalars_ = 0;
  std::vector<Point> points_;
  std::vector<Equation> equations_;
};

class SigmaProof {
 public:
  // Layout above; the sizes come from the relation (or are given).
  static Result<SigmaProof> Decode(ByteView bytes, std::size_t num_equations,
                                   std::size_t num_scalars);
  static Result<SigmaProof> Decode(ByteView bytes, const LinearRelation& relation) {
    return Decode(bytes, relation.num_equations(), relation.num_scalars());
  }
  Bytes Encode() const;

  const std::vector<ec::CompressedRistretto>& commitments() const { return commitments_; }
  const std::vector<ec::Scalar>& responses() const { return responses_; }

 private:
  friend struct SigmaInternal;
  std::vector<ec::CompressedRistretto> commitments_;   // A_j, as encoded
  std::vector<ec::RistrettoPoint> commitment_points_;  // A_j, decoded
  std::vector<ec::Scalar> responses_;                  // s_i
};

// Proves knowledge of `witness` (x_0..x_{m-1}) for `relation`, appending to `transcript`.
// kInvalidArgument if the relation is invalid or the witness count differs. A witness that does
// not satisfy the relation gives a proof that does not verify.
Result<SigmaProof> Prove(Transcript& transcript, const LinearRelation& relation,
                         std::span<const ec::Scalar> witness);
// The same with the nonce randomness given (known-answer tests; see TranscriptRng).
Result<SigmaProof> ProveWithRandomness(Transcript& transcript, const LinearRelation& relation,
                                       std::span<const ec::Scalar> witness,
                                       std::span<const std::uint8_t, 32> randomness);

// Ok, VerificationFailed(), or kInvalidArgument for an invalid relation or a proof of the wrong
// shape. Checks every equation exactly (no randomness).
Status Verify(Transcript& transcript, const LinearRelation& relation, const SigmaProof& proof);

// Verifies many proofs (of the same or different relations) with one multi-scalar
// multiplication: each equation j of proof p is weighted by a fresh random 128-bit w_{p,j} and the
// sum of w_{p,j} (sum_k s G - A_j - c P_j) must be the identity. Points shared between statements
// (the generators) are merged. A batch with any bad proof is rejected except with probability at
// most 2^-128 per bad equation (docs/notes/sigma.md); it does not say which proof was bad.
class SigmaBatchVerifier {
 public:
  SigmaBatchVerifier();
  ~SigmaBatchVerifier();
  SigmaBatchVerifier(SigmaBatchVerifier&&) noexcept;
  SigmaBatchVerifier& operator=(SigmaBatchVerifier&&) noexcept;

  // Derives the proof's challenge from `transcript` (as Verify does) and adds its equations.
  // An invalid relation or a wrong proof shape is kInvalidArgument here, and the whole batch then
  // fails in Verify().
  Status Add(Transcript& transcript, const LinearRelation& relation, const SigmaProof& proof);
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

// ---- The concrete protocols, each a LinearRelation ----

// Proof of knowledge of a discrete log (Schnorr): P = x B. Label "veil.zk.dlog".
inline constexpr std::size_t kDlogProofSize = 64;
LinearRelation DlogRelation(const ec::RistrettoPoint& P);
SigmaProof ProveDlog(Transcript& transcript, const ec::Scalar& x, const ec::RistrettoPoint& P);
Status VerifyDlog(Transcript& transcript, const ec::RistrettoPoint& P, const SigmaProof& proof);

// Equality of discrete logs (Chaum-Pedersen): P = x G and Q = x H. Label "veil.zk.dleq".
inline constexpr std::size_t kDleqProofSize = 96;
LinearRelation DleqRelation(const ec::RistrettoPoint& G, const ec::RistrettoPoint& P,
                            const ec::RistrettoPoint& H, const ec::RistrettoPoint& Q);
SigmaProof ProveDleq(Transcript& transcript, const ec::Scalar& x, const ec::RistrettoPoint& G,
                     const ec::RistrettoPoint& P, const ec::RistrettoPoint& H,
                     const ec::RistrettoPoint& Q);
Status VerifyDleq(Transcript& transcript, const ec::RistrettoPoint& G, const ec::RistrettoPoint& P,
                  const ec::RistrettoPoint& H, const ec::RistrettoPoint& Q,
                  const SigmaProof& proof);

// Knowledge of an opening of a Pedersen commitment: C = v G + r H. Label
// "veil.zk.pedersen-opening".
inline constexpr std::size_t kOpeningProofSize = 96;
LinearRelation OpeningRelation(const PedersenGens& gens, const Commitment& C);
SigmaProof ProveOpening(Transcript& transcript, const PedersenGens& gens, const ec::Scalar& v,
                        const ec::Scalar& r, const Commitment& C);
Status VerifyOpening(Transcript& transcript, const PedersenGens& gens, const Commitment& C,
                     const SigmaProof& proof);

}  // namespace veil::zk
