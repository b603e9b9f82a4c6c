// Pseudorandom sampling of ML-DSA (FIPS 204 sec. 7.3): the public matrix A (ExpandA / RejNTTPoly,
// Algorithms 32 and 30, SHAKE128), the secret vectors s1, s2 (ExpandS / RejBoundedPoly,
// Algorithms 33 and 31, SHAKE256), the mask y (ExpandMask, Algorithm 34) and the challenge c
// (SampleInBall, Algorithm 29).
//
// Constant time. ExpandA works on the public seed rho and may branch on everything (hence
// ...Vartime). The others run on secrets; two of them are rejection samplers, which consume an
// unbounded, data-dependent amount of the XOF stream, so no implementation can avoid a branch on
// the candidates. The accept/reject verdicts are computed without branches for a whole squeezed
// buffer and declassified together: they are statistically independent of the accepted values
// (given acceptance, a RejBoundedPoly nibble is uniform on [0, 2 eta], a SampleInBall byte uniform
// on [0, i]), so the pattern of rejections says nothing about s1, s2 or c. The values themselves
// never steer a branch or an address: SampleInBall does its swaps with masked reads and writes
// over the whole polynomial. See docs/notes/mldsa.md.
//
// Where UseAvx2() (simd.h), ExpandA, ExpandS and ExpandMask run four XOF streams at a time on the
// 4-way Keccak (keccak4x.h); they return exactly the values of the scalar code, which the other
// CPUs (and SetPortableOnlyForTesting) get. The four-way rejection samplers use the same per-buffer
// verdicts, declassified the same way; which streams need another block follows from those
// verdicts and is public too.
//
// Thread safety: pure functions on caller-owned values; a MaskSampler belongs to one signing call.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "params.h"
#include "polyvec.h"

namespace veil::crypto::mldsa {

// Algorithm 32 (with Algorithm 30 for each entry): A_hat[r][s] = RejNTTPoly(rho || s || r).
void ExpandAVartime(MatrixA& a, std::span<const std::uint8_t, kSeedBytes> rho);

// Algorithm 31: a polynomial with coefficients in [-eta, eta] from SHAKE256(rho' || index), the
// index as 2 little-endian bytes.
void RejBoundedPoly(Poly& a, std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime,
                    std::uint16_t index);

// Algorithm 33: s1[r] from index r, s2[r] from index r + l.
void ExpandS(PolyVecL& s1, PolyVecK& s2, std::span<const std::uint8_t, kRhoPrimeBytes> rho_prime);

// Algorithm 34: y[r] = BitUnpack(SHAKE256(rho'' || kappa + r, 640), gamma_1 - 1, gamma_1).
void ExpandMask(PolyVecL& y, std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp,
                std::uint16_t kappa);

// ExpandMask for the successive kappa of one signing loop (Algorithm 7, line 11): the same values,
// but the polynomials are made four at a time on the 4-way Keccak, and those of a batch that
// belong to kappa + l and beyond are kept for the next call. Index i of ExpandMask's streams is
// kappa + r, so the l = 5 polynomials of consecutive iterations take five batches every four
// iterations instead of a batch of four plus one scalar stream each time. Without AVX2 it is
// ExpandMask. Holds secret polynomials and wipes them when destroyed; rho'' must outlive it.
class MaskSampler {
 public:
  explicit MaskSampler(std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp) : rho_pp_(rho_pp) {}
  MaskSampler(const MaskSampler&) = delete;
  MaskSampler& operator=(const MaskSampler&) = delete;
  ~MaskSampler();

  // y = ExpandMask(rho'', kappa).
  void Expand(PolyVecL& y, std::uint16_t kappa);

 private:
  std::span<const std::uint8_t, kRhoPrimeBytes> rho_pp_;
  std::array<Poly, 4> batch_;  // the polynomials of indices batch_first_ .. + 3
  std::uint32_t batch_first_ = 0;
  bool batch_valid_ = false;
};

// Algorithm 29: c with exactly tau coefficients in {-1, 1}, the rest 0, from c_tilde.
void SampleInBall(Poly& c, std::span<const std::uint8_t, kCTildeBytes> c_tilde);

}  // namespace veil::crypto::mldsa
