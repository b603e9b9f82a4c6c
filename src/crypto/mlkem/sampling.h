// Sampling (FIPS 203 sec. 4.2.2): SampleNTT (Algorithm 7) for the matrix A_hat, SamplePolyCBD_eta
// (Algorithm 8) with PRF_eta for the secret and error polynomials.
//
// SampleNTT is rejection sampling: its running time and memory accesses depend on the XOF output,
// which is a function of rho alone. rho is public (the last 32 bytes of ek), so this is not a
// leak; the key generation marks rho public (VEIL_DECLASSIFY) right where G produces it, so the
// constant-time check still flags any use of a real secret here. SamplePolyCBD is branch-free: its
// input is derived from the secret seeds sigma and r. Both come in batch forms that run up to four
// XOF or PRF instances at once on the AVX2 Keccak (keccak4x.h) when the CPU has it (simd.h).
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

// Runs every job with the same rho: up to four at a time with AVX2 (keccak4x.h) when available,
// else one by one. The results are identical either way.
void SampleNttMany(std::span<const SampleNttJob> jobs,
                   std::span<const std::uint8_t, kSymBytes> rho);

// A_hat (transposed = false: A_hat[i][j] = SampleNTT(rho || j || i)) or its transpose
// (A_hat^T[i][j] = A_hat[j][i] = SampleNTT(rho || i || j)), generated once per operation.
template <std::size_t kK>
void GenerateMatrix(PolyMatrix<kK>& a_hat, std::span<const std::uint8_t, kSymBytes> rho,
                    bool transposed) {
  std::array<SampleNttJob, kK * kK> jobs;
  for (std::size_t i = 0; i < kK; ++i) {
    for (std::size_t j = 0; j < kK; ++j) {
      const auto ui = static_cast<std::uint8_t>(i);
      const auto uj = static_cast<std::uint8_t>(j);
      jobs[i * kK + j] =
          transposed ? SampleNttJob{&a_hat[i][j], ui, uj} : SampleNttJob{&a_hat[i][j], uj, ui};
    }
  }
  SampleNttMany(jobs, rho);
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

// SamplePolyCBD_2 of a 128-byte input, exposed for tests.
void SamplePolyCbd2(Poly& f, std::span<const std::uint8_t, 128> bytes);

}  // namespace veil::crypto::mlkem
