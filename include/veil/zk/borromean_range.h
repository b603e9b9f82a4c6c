// The bit-decomposition range-proof backend: base-4 digits proven with one Borromean ring
// signature (Maxwell and Poelstra 2015, the construction of Elements' confidential amounts), for
// rails of any width from 1 to 64 bits. docs/notes/borromean_range.md has the math.
//
// Statement: C = v G + r H (a zk::Commitment over PedersenGens::Default()) with 0 <= v < 2^bits.
// The value is split into k = ceil(bits / 2) digits, base 4 (the last is base 2 when bits is
// odd); each digit gets a commitment C_i = d_i 4^i G + r_i H, the last one implied by
// C - sum C_i. Digit i is proven to be in its range by a ring over the members
// P_{i,j} = C_i - j 4^i G (j = 0..3): the prover knows the discrete log of exactly the member
// j = d_i in base H. All k rings share one challenge e0 (Borromean), so the proof is
//
//     version (1) || bits (1) || e0 (32) || C_0 .. C_{k-2} (32 each) || s_{i,j} (32 each)
//
// 2 + 32 (k + sum_i n_i) bytes with n_i = 4 (2 for an odd width's last digit): 3,202 bytes for
// 40 bits, 5,122 for 64. Ring challenges are 128 bits (short Schnorr challenges; the note gives
// the soundness bound), which halves the doublings of every ring step.
//
// Next to Bulletproofs (zk/bulletproofs.h) this backend is larger but simpler, needs no generator
// vectors and proves a width with no power-of-two restriction in time linear in the width.
//
// Constant time: Prove runs a fixed schedule that does not depend on the digits (every ring does
// n_i - 1 steps before e0 and n_i - 1 after it, the ones on the wrong side of the secret digit as
// discarded dummies; members are chosen by masked selection). Verify is variable time (public
// data). Decode is strict: exact length, the version and width byte, canonical points and
// scalars.
//
// Thread safety: proofs are immutable values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "veil/base/bytes.h"
#include "veil/base/result.h"
#include "veil/ec/ristretto.h"
#include "veil/ec/scalar.h"
#include "veil/zk/pedersen.h"
#include "veil/zk/transcript.h"

namespace veil::zk {

class BorromeanRangeProof {
 public:
  static constexpr std::uint8_t kVersion = 2;
  static constexpr unsigned kMaxBits = 64;

  // The encoded size of a proof for `bits` in 1..64.
  static std::size_t SizeForBits(unsigned bits);

  // Proves that PedersenGens::Default().Commit(value, blinding) holds a value below 2^bits,
  // appending the statement to `transcript` (the caller binds the context first). kInvalidArgument
  // for bits outside 1..64 or value >= 2^bits.
  static Result<BorromeanRangeProof> Prove(Transcript& transcript, std::uint64_t value,
                                           const ec::Scalar& blinding, unsigned bits);

  // Ok if the proof shows that `commitment` holds a value below 2^bits; VerificationFailed()
  // otherwise. The width is the caller's statement, never read from the proof: kInvalidArgument
  // for bits outside 1..64 or a proof of another width. Appends what Prove appended.
  Status Verify(Transcript& transcript, const Commitment& commitment, unsigned bits) const;

  unsigned bits() const { return bits_; }
  Bytes Encode() const;
  static Result<BorromeanRangeProof> Decode(ByteView bytes);

 private:
  friend struct BorromeanRangeInternal;
  unsigned bits_ = 0;
  std::array<std::uint8_t, 32> e0_{};
  std::vector<ec::CompressedRistretto> digit_commitments_;  // C_0 .. C_{k-2}, as encoded
  std::vector<ec::RistrettoPoint> digit_points_;            // the same, decoded
  std::vector<ec::Scalar> s_;                               // s_{i,j}, ring by ring
};

}  // namespace veil::zk
