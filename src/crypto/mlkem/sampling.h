// Sampling (FIPS 203 sec. 4.2.2): SampleNTT (Algorithm 7) for the matrix A_hat, SamplePolyCBD_eta
// (Algorithm 8) with PRF_eta for the secret and error polynomials.
//
// SampleNTT is rejection sampling: its running time and memory accesses depend on the XOF output,
// which is a function of rho alone. rho is public (the last 32 bytes of ek), so this is not a
// leak; the key generation marks rho public (VEIL_DECLASSIFY) right where G produces it, so the
// constant-time check still flags any use of a real secret here. SamplePolyCBD is branch-free: its
// input is derived from the secret seeds sigma and r. SampleMany runs all of an operation's
// instances (and decapsulation's J) together on the AVX2 x4 Keccak (keccak4x.h) when the CPU has
// it (simd.h), four lanes at a time; the SampleNTT lanes stay public and the others secret, since
// lanes never mix.
//
// Thread safety: functions on caller-owned values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "params.h"
#include "poly.h"
#include "polyvec.h"

namespace veil::crypto::mlkem {

// a_hat = SampleNTT(rho || j || i) (Algorithm 7, as called in Algorithm 13 line 6): uniform in
// T_q, coefficients in [0, q). The XOF is squeezed three SHAKE128 blocks at once (enough for 256
// coefficients with probability about 0.99), then one block at a time.
void SampleNtt(Poly& a_hat, std::span<const std::uint8_t, kSymBytes> rho, std::uint8_t j,
               std::uint8_t i);

// One SampleNTT call: a_hat = SampleNTT(rho || b0 || b1).
struct SampleNttJob {
  Poly* a_hat;
  std::uint8_t b0;
  std::uint8_t b1;
};

// Runs every job with the same rho: on the x4 Keccak (keccak4x.h) when available (SampleMany), else
// one by one. The results are identical either way.
void SampleNttMany(std::span<const SampleNttJob> jobs,
                   std::span<const std::uint8_t, kSymBytes> rho);

// The SampleNTT jobs of A_hat (transposed = false: A_hat[i][j] = SampleNTT(rho || j || i)) or of
// its transpose (A_hat^T[i][j] = A_hat[j][i] = SampleNTT(rho || i || j)).
template <std::size_t kK>
std::array<SampleNttJob, kK * kK> MatrixJobs(PolyMatrix<kK>& a_hat, bool transposed) {
  std::array<SampleNttJob, kK * kK> jobs;
  for (std::size_t i = 0; i < kK; ++i) {
    for (std::size_t j = 0; j < kK; ++j) {
      const auto ui = static_cast<std::uint8_t>(i);
      const auto uj = static_cast<std::uint8_t>(j);
      jobs[i * kK + j] =
          transposed ? SampleNttJob{&a_hat[i][j], ui, uj} : SampleNttJob{&a_hat[i][j], uj, ui};
    }
  }
  return jobs;
}

// A_hat or its transpose (see MatrixJobs), generated once per operation.
template <std::size_t kK>
void GenerateMatrix(PolyMatrix<kK>& a_hat, std::span<const std::uint8_t, kSymBytes> rho,
                    bool transposed) {
  SampleNttMany(MatrixJobs<kK>(a_hat, transposed), rho);
}

// f = SamplePolyCBD_eta(PRF_eta(s, b)) (Algorithm 8 over eq. 4.3: PRF_eta(s, b) = SHAKE256(s || b)
// truncated to 64 eta bytes). Coefficients in [-eta, eta]. Only eta = 2 is implemented, the value
// ML-KEM-768 uses for both eta_1 and eta_2.
template <unsigned kEta>
void SamplePolyCbdPrf(Poly& f, std::span<const std::uint8_t, kSymBytes> s, std::uint8_t b);

// f[n] = SamplePolyCBD_eta(PRF_eta(s, b + n)) for n = 0 .. f.size() - 1: up to four at a time with
// AVX2 when available, else one by one. The results are identical either way.
template <unsigned kEta>
void SamplePolyCbdPrfMany(std::span<Poly* const> f, std::span<const std::uint8_t, kSymBytes> s,
                          std::uint8_t b);

// One more SHAKE256 computation to run beside the samplers: out = SHAKE256(in[0] || in[1])
// truncated to 32 bytes. Decapsulation's K_bar = J(z || c) (FIPS 203 Algorithm 18, line 7), whose
// nine blocks would otherwise take nine scalar permutations.
struct Shake256Job {
  std::array<std::span<const std::uint8_t>, 2> in;
  std::span<std::uint8_t, kSymBytes> out;
};

// Everything K-PKE samples in one call: the SampleNTT jobs over rho, noise[n] =
// SamplePolyCBD_2(PRF_2(s, b + n)), and the optional `extra` job. With AVX2 all of them share the
// x4 permutations, each lane taking the next job as soon as its current one is done (about 9
// permutations for KeyGen and Encrypt, 11 with J, instead of 8 plus 3 to 12 scalar ones with one
// batch per kind); otherwise they run one by one. The results are identical either way.
void SampleMany(std::span<const SampleNttJob> matrix, std::span<const std::uint8_t, kSymBytes> rho,
                std::span<Poly* const> noise, std::span<const std::uint8_t, kSymBytes> s,
                std::uint8_t b, const Shake256Job* extra);

// SamplePolyCBD_2 of a 128-byte input, exposed for tests.
void SamplePolyCbd2(Poly& f, std::span<const std::uint8_t, 128> bytes);

// Algorithm 7, lines 4-13, over buf (a multiple of 3 bytes): appends the accepted values to
// a[ctr..] until a is full and returns the new ctr. Branches on the XOF output, which depends only
// on the public rho. The portable loop, exposed for tests (avx2::RejectionSample is its twin).
std::size_t RejectionSamplePortable(Poly& a, std::size_t ctr, std::span<const std::uint8_t> buf);

}  // namespace veil::crypto::mlkem
