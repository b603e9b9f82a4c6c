// Internal: the inner-product argument of Bulletproofs (Bünz, Bootle, Boneh, Poelstra, Wuille and
// Maxwell, "Bulletproofs: Short Proofs for Confidential Transactions and More", 2018, sec. 3,
// Protocol 2), made non-interactive with the transcript; the range proof of bulletproofs.cc is its
// one user. docs/notes/bulletproofs.md derives everything here.
//
// Statement, for n a power of two, public generators G_0..G_{n-1}, H_0..H_{n-1}, public factors
// h_i (the range proof's y^-i) and Q = w B (B the standard generator):
//
//     P = <a, G> + sum_i b_i h_i H_i + <a, b> Q
//
// Each of the log2(n) rounds sends L = <a_lo, G_hi> + <b_hi, H'_lo> + <a_lo, b_hi> Q and
// R = <a_hi, G_lo> + <b_lo, H'_hi> + <a_hi, b_lo> Q, draws u, and folds
// a' = u a_lo + u^-1 a_hi, b' = u^-1 b_lo + u b_hi, G' = u^-1 G_lo + u G_hi, H' = u H'_lo + u^-1
// H'_hi; the proof ends with the scalars a, b of length one. The verifier unrolls the folding into
// G_final = sum s_i G_i, H'_final = sum s_i^-1 h_i H_i with s_i = prod_j u_j^(+-1) (the sign from
// bit k-j of i), so the whole check is one multi-scalar multiplication that the range verifier
// merges into its own (InnerProductVerifierScalarsFor gives the s_i).
//
// Constant time: a and b are secret. L and R are computed with the constant-time
// ec::MultiScalarMul / MultiScalarMulTable, the Q terms with BasepointMul; the folding of a and b
// is scalar arithmetic. What depends only on public data (the challenges, the folded generators)
// is variable time. L, R, a, b are declassified where they are published.
//
// Thread safety: stateless functions; the tables are immutable values.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/transcript.h"

namespace veil::zk::internal {

// Constant-time tables of the point sets of L and R in the first two rounds, which are always
// taken over the original generators: built once per generator length and shared between proofs
// (bulletproofs.cc caches them) and with the commitment S of the range proof, whose points are
// those of the first round. Immutable; safe to share between threads.
struct InnerProductTables {
  // G and H of the same power-of-two length n >= 2 (for n = 2 the second-round tables are empty).
  InnerProductTables(std::span<const ec::RistrettoPoint> G, std::span<const ec::RistrettoPoint> H);
  // Round 1: G_{n/2..n} then H_{0..n/2} (the points of L_1); G_{0..n/2} then H_{n/2..n} (R_1).
  ec::MultiScalarMulTable first_l, first_r;
  // Round 2, in the order of RoundPoints(G, H, n / 2).
  ec::MultiScalarMulTable second_l, second_r;
};

// The points that L and R of a round multiply when the current generators (length len) are
// written over a base vector (base_g, base_h): for L, base_g[q] with q mod len in the upper half,
// then base_h[q] with q mod len in the lower half; for R the complements.
void RoundPoints(std::span<const ec::RistrettoPoint> base_g,
                 std::span<const ec::RistrettoPoint> base_h, std::size_t len,
                 std::vector<ec::RistrettoPoint>& l_points,
                 std::vector<ec::RistrettoPoint>& r_points);

struct InnerProductProof {
  std::vector<ec::CompressedRistretto> L, R;  // as published
  std::vector<ec::RistrettoPoint> L_points, R_points;
  ec::Scalar a, b;
};

// Proves the statement above, appending "ipa.n" = n, then per round L, R and drawing u, then a and
// b. `a` and `b` are the witness vectors (length n, a power of two >= 2); they are overwritten and
// wiped. `tables` must be InnerProductTables(G, H). A zero challenge (probability 2^-252) gives
// kInternal.
Result<InnerProductProof> ProveInnerProduct(Transcript& transcript, const ec::Scalar& w,
                                            std::span<const ec::RistrettoPoint> G,
                                            std::span<const ec::RistrettoPoint> H,
                                            std::span<const ec::Scalar> h_factors,
                                            const InnerProductTables& tables,
                                            std::vector<ec::Scalar>& a, std::vector<ec::Scalar>& b);

// What the verifier needs from the transcript: the challenges squared and inverted squared, and
// s_0..s_{n-1} (s_i^-1 = s_{n-1-i}).
struct InnerProductVerifierScalars {
  std::vector<ec::Scalar> u_sq, u_inv_sq, s;
};

// Replays the transcript of a proof (L, R, a, b) with n = 2^L.size(), appending exactly what the
// prover appended, and computes the scalars with one batch inversion, which also inverts every
// element of `invert_too` in place (the range verifier's y). Returns false if a challenge or an
// element of invert_too is zero: such a proof is rejected.
bool InnerProductVerifierScalarsFor(Transcript& transcript,
                                    std::span<const ec::CompressedRistretto> L,
                                    std::span<const ec::CompressedRistretto> R, const ec::Scalar& a,
                                    const ec::Scalar& b, std::span<ec::Scalar> invert_too,
                                    InnerProductVerifierScalars& out);

// log2(n) for a power of two n >= 1.
std::size_t Log2(std::size_t n);

}  // namespace veil::zk::internal
