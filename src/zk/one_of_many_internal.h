// Internal: the machinery shared by one-of-many proofs (one_of_many.cc) and Triptych ring
// signatures (ring_signature.cc), docs/notes/one_of_many.md.
//
// Both protocols write the secret index l in base n (m digits), commit to the digits' 0/1
// indicators sigma_{j,i} and to random a_{j,i} (A, B, C, D), form the polynomials
// p_k(X) = prod_j (sigma_{j,k_j} X + a_{j,k_j}) for every member k, and answer the challenge x with
// f_{j,i} = sigma_{j,i} x + a_{j,i}; they differ only in what the coefficients of p_k are summed
// against (the set's points and H, or the ring's keys, G and the key image). This header holds
// that common part: parameters, generators, the constant-time digit machinery and the prover's
// polynomials, the verifier's evaluation of p_k(x) and its two bit equations, and the strict codec
// of points and scalars.
//
// Padding: the set is padded to n^m members by repeating member N - 1. Because
// sum_k p_k(X) = X^m (every row of a sums to zero), the padded members' coefficients are folded
// into member N - 1 without computing them: for d < m, the fold is minus the sum over k < N - 1;
// for the verifier, x^m minus the sum of p_k(x) over k < N - 1.
//
// Thread safety: the generators are built once under a function-local static; a DigitProver is a
// single-threaded value that wipes its secrets on destruction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "msm_batch.h"
#include "veil/base/bytes.h"
#include "veil/base/consttime.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/one_of_many.h"
#include "veil/zk/transcript.h"

namespace veil::zk::internal {

// ---- Constant-time arithmetic on small integers (the index and its digits) ----

// CtEq64, CtLt64 and CtSelect64 are in veil/base/consttime.h.
// 1 if the two 32-byte strings are equal, else 0, reading every byte.
std::uint64_t CtEqBytes32(const ec::CompressedRistretto::Bytes& a,
                          const ec::CompressedRistretto::Bytes& b);

// The m base-n digits of l < 2^32, least significant first, without a division instruction
// (whose latency varies with its operands on some processors): q = floor(l / n) is the high half
// of l * ceil(2^64 / n), exact for l, n < 2^32.
void CtDigits(std::uint64_t l, std::size_t n, std::size_t m, std::span<std::uint64_t> digits);

// ---- Parameters ----

// How a protocol's proof size and prover work depend on (N, n, m), for the choice of n.
enum class DigitProtocol { kOneOfMany, kRingSignature };
// The base minimising the prover's estimated constant-time work among bases whose proof is at
// most 20% larger than the smallest (docs/notes/one_of_many.md).
Result<OneOfManyParams> ChooseParams(std::size_t N, DigitProtocol protocol);
// Parameters as a decoder receives them must be exactly what OneOfManyParams::Create gives
// (kInvalidArgument otherwise).
Status CheckParams(const OneOfManyParams& p);

// ---- Generators ----

// G_0..G_{kMaxGenerators-1} = PedersenVectorGenerator(i) and H = PedersenGeneratorH(), with their
// encodings: the vector commitment Com(v; s) = sum_{j,i} v_{j,i} G_{j n + i} + s H of A, B, C, D.
struct DigitGenerators {
  static constexpr std::size_t kMaxGenerators = 64;  // >= m n for every valid parameter set
  std::vector<ec::RistrettoPoint> g;
  std::vector<ec::CompressedRistretto> g_encodings;
  ec::RistrettoPoint h;
  ec::CompressedRistretto h_encoding;
};
const DigitGenerators& Generators();

// ---- Sets ----

// The members' digest: a Transcript (`protocol`, 1) absorbing N and each encoding (label
// `label`), then 32 challenge bytes.
std::array<std::uint8_t, 32> MemberDigest(std::string_view protocol, std::string_view label,
                                          std::span<const ec::CompressedRistretto> members);

// ---- Prover ----

// The secret side of the digit argument for one proof. Draws r_A, r_B, r_C, r_D and a_{j,i}
// (1 <= i < n) from `rng`, in that order; computes A, B, C, D and the coefficients of every p_k.
// Constant time in l and every drawn value.
class DigitProver {
 public:
  DigitProver(const OneOfManyParams& params, std::uint64_t l, TranscriptRng& rng);
  ~DigitProver();
  DigitProver(const DigitProver&) = delete;
  DigitProver& operator=(const DigitProver&) = delete;

  // A, B, C, D (secret-derived until the caller publishes them).
  const std::array<ec::RistrettoPoint, 4>& commitments() const { return commitments_; }
  // sum_k p_{k,d} P_k for d = 0..m-1 over the N points of `table` (constant time).
  std::vector<ec::RistrettoPoint> CoefficientSums(const ec::MultiScalarMulTable& table) const;
  // f_{j,i} = sigma_{j,i} x + a_{j,i} (i >= 1), z_A = r_B x + r_A, z_C = r_C x + r_D.
  void Respond(const ec::Scalar& x, std::vector<ec::Scalar>& f, ec::Scalar& z_a,
               ec::Scalar& z_c) const;

 private:
  OneOfManyParams p_;
  std::vector<ec::Scalar> sigma_;   // m n, row j at j n
  std::vector<ec::Scalar> a_;       // m n, a_{j,0} = -sum_{i>=1} a_{j,i}
  std::vector<ec::Scalar> coeffs_;  // m N, p_{k,d} at d N + k, member N - 1 folded
  ec::Scalar r_a_, r_b_, r_c_, r_d_;
  std::array<ec::RistrettoPoint, 4> commitments_;
};

// x^0..x^m.
std::vector<ec::Scalar> Powers(const ec::Scalar& x, std::size_t m);
// z = r x^m - sum_{d<m} rho_d x^d.
ec::Scalar FinalResponse(const ec::Scalar& r, std::span<const ec::Scalar> rho,
                         std::span<const ec::Scalar> x_powers);

// ---- Verifier ----

// The parts of a decoded proof the digit argument reads.
struct DigitProofView {
  std::span<const ec::RistrettoPoint> abcd;  // A, B, C, D
  std::span<const ec::Scalar> f;             // m (n - 1)
  const ec::Scalar* z_a;
  const ec::Scalar* z_c;
};

// f_{j,0} = x - sum_{i>=1} f_{j,i} completed into all m n values.
std::vector<ec::Scalar> FullResponses(const OneOfManyParams& p, std::span<const ec::Scalar> f,
                                      const ec::Scalar& x);
// p_k(x) = prod_j f_{j,k_j} for k < N, member N - 1 folded (x^m minus the others).
std::vector<ec::Scalar> EvaluateCoefficients(const OneOfManyParams& p,
                                             std::span<const ec::Scalar> f_full,
                                             const ec::Scalar& x_m);
// Adds, with fresh random weights w1, w2, the two bit equations
//     w1 (A + x B - Com(f; z_A)) + w2 (x C + D - Com(f (x - f); z_C)) = 0
// except for their H terms, whose coefficient is returned (the caller adds it to its own).
ec::Scalar AddBitEquations(MsmBatch& msm, const OneOfManyParams& p, const DigitProofView& proof,
                           std::span<const ec::Scalar> f_full, const ec::Scalar& x);

// ---- Codec ----

// Appends canonical encodings.
void AppendEncoding(Bytes& out, const ec::CompressedRistretto& p);
void AppendScalar(Bytes& out, const ec::Scalar& s);
// Reads `count` canonical points from bytes[*pos..], advancing *pos (kInvalidArgument on any
// invalid one).
Status ReadPoints(ByteView bytes, std::size_t& pos, std::size_t count,
                  std::vector<ec::CompressedRistretto>& encodings,
                  std::vector<ec::RistrettoPoint>& points);
// Reads `count` canonical scalars.
Status ReadScalars(ByteView bytes, std::size_t& pos, std::size_t count,
                   std::vector<ec::Scalar>& scalars);

}  // namespace veil::zk::internal
