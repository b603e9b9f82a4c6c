// The number-theoretic transform of ML-KEM (FIPS 203 sec. 4.3): NTT, NTT^-1 and the products in
// T_q, with the 7-layer Cooley-Tukey / Gentleman-Sande butterflies over zeta = 17, a primitive
// 256th root of unity mod q.
//
// Twiddle factors are precomputed at compile time in Montgomery form (zeta^k * 2^16 mod q, in the
// bit-reversed order of the standard's loops), so each butterfly is one Montgomery multiplication.
// The output of Ntt is in the standard's order (bit-reversed, as the standard's NTT produces it),
// so ByteEncode_12 of it is the standard's encoding of t_hat and s_hat.
//
// Thread safety: functions on caller-owned values; the tables are constants.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "params.h"
#include "poly.h"
#include "reduce.h"

namespace veil::crypto::mlkem {

namespace internal {
constexpr std::int64_t PowModQ(std::int64_t base, unsigned e) {
  std::int64_t r = 1;
  for (unsigned i = 0; i < e; ++i) r = (r * base) % kQ;
  return r;
}
constexpr unsigned BitRev7(unsigned i) {
  unsigned r = 0;
  for (unsigned b = 0; b < 7; ++b) r |= ((i >> b) & 1u) << (6 - b);
  return r;
}
// x * 2^16 mod q as the representative in (-q/2, q/2].
constexpr std::int16_t ToMontCentred(std::int64_t x) {
  std::int64_t r = (x * kMontR) % kQ;
  if (r > kQ / 2) r -= kQ;
  return static_cast<std::int16_t>(r);
}
}  // namespace internal

inline constexpr std::int16_t kZeta = 17;

// kZetas[i] = zeta^BitRev7(i) * R mod q, i = 0..127 (FIPS 203 Appendix A, in Montgomery form).
inline constexpr std::array<std::int16_t, 128> kZetas = [] {
  std::array<std::int16_t, 128> z{};
  for (unsigned i = 0; i < 128; ++i) {
    z[i] = internal::ToMontCentred(internal::PowModQ(kZeta, internal::BitRev7(i)));
  }
  return z;
}();

// kGammas[i] = zeta^(2 BitRev7(i) + 1) * R mod q, i = 0..127 (FIPS 203 Algorithm 11, line 2).
inline constexpr std::array<std::int16_t, 128> kGammas = [] {
  std::array<std::int16_t, 128> g{};
  for (unsigned i = 0; i < 128; ++i) {
    g[i] = internal::ToMontCentred(internal::PowModQ(kZeta, 2 * internal::BitRev7(i) + 1));
  }
  return g;
}();

// Spot checks against the reference implementation's table (pq-crystals/kyber ntt.c).
static_assert(kZetas[0] == -1044 && kZetas[1] == -758 && kZetas[2] == -359 && kZetas[127] == 1628);

// f_hat = NTT(f) in place (FIPS 203 Algorithm 9). Accepts |f| < q; each of the 7 layers adds less
// than q, so the output is bounded by 8q < 2^15 in absolute value and is not reduced.
void Ntt(Poly& f);

// f = NTT^-1(f_hat) * R in place (Algorithm 10, with the final 128^-1 folded into one Montgomery
// multiplication by R^2 / 128). Accepts |f_hat| < q (any int16 in the first layer's sums is fine
// for Barrett, but the differences must stay in int16); output |f| < q.
void InvNttToMont(Poly& f_hat);

// h_hat = sum_k f_hat[k] x g_hat[k] * R^-1 over `count` pairs (Algorithms 11, 12 with one
// Montgomery reduction per output coefficient), g_hat given by its cache (PolyMulCacheCompute).
// Accepts |f_hat| < q and |g_hat| <= q/2; count <= 4 keeps the 32-bit sums below q * 2^15.
// Output |h_hat| < q.
void BaseMulAccumulate(Poly& h_hat, const Poly* f_hat, const PolyMulCache* g_cache,
                       std::size_t count);

// The portable versions of the three functions above, which dispatch to the hand-vectorised ones
// of avx2.h when UseAvx2() (simd.h); exposed so that the tests can compare the two.
void NttPortable(Poly& f);
void InvNttToMontPortable(Poly& f_hat);
void BaseMulAccumulatePortable(Poly& h_hat, const Poly* f_hat, const PolyMulCache* g_cache,
                               std::size_t count);

}  // namespace veil::crypto::mlkem
