// The rounding functions of ML-DSA (FIPS 204 sec. 7.4, Algorithms 35 to 40): Power2Round splits t
// into t1 * 2^d + t0; Decompose splits r into r1 * 2 gamma_2 + r0, giving HighBits and LowBits;
// MakeHint and UseHint carry the one bit per coefficient that lets the verifier recompute
// HighBits(w - c s2) from A z - c t1 2^d.
//
// Inputs are standard representatives in [0, q). Decompose divides by 2 gamma_2 with the
// multiply-and-shift of the reference implementation (exact for every r in [0, q), which the tests
// check exhaustively against the definition), so no function here branches, divides by a variable
// or indexes memory by its input: all are safe on secrets. Decompose is a template over gamma_2
// because the CCTV field-operation vector also covers ML-DSA-44's gamma_2 = (q - 1) / 88.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "params.h"
#include "reduce.h"

namespace veil::crypto::mldsa {

struct Split {
  std::int32_t hi;  // r1
  std::int32_t lo;  // r0
};

// Algorithm 35: r = r1 * 2^d + r0 with r0 in (-2^(d-1), 2^(d-1)], for r in [0, q).
constexpr Split Power2Round(std::int32_t r) {
  const std::int32_t r1 = (r + (1 << (kD - 1)) - 1) >> kD;
  return {r1, r - (r1 << kD)};
}

// Algorithm 36: r = r1 * 2 gamma_2 + r0 (mod q) with r0 = r mod+- 2 gamma_2, except that
// r - r0 = q - 1 gives r1 = 0 and r0 - 1. For r in [0, q).
template <std::int32_t kG2>
constexpr Split Decompose(std::int32_t r) {
  static_assert(kG2 == (kQ - 1) / 32 || kG2 == (kQ - 1) / 88, "gamma_2 of FIPS 204 Table 1");
  // r1 = round(r / (2 gamma_2)) from ceil(r / 128) times a fixed-point reciprocal of
  // 2 gamma_2 / 128 (2046 or 744): 1025 / 2^22 and 11275 / 2^24.
  std::int32_t r1 = (r + 127) >> 7;
  if constexpr (kG2 == (kQ - 1) / 32) {
    r1 = ((r1 * 1025 + (1 << 21)) >> 22) & 15;  // (q - 1) / (2 gamma_2) = 16 wraps to 0
  } else {
    r1 = (r1 * 11275 + (1 << 23)) >> 24;
    r1 ^= ((43 - r1) >> 31) & r1;  // 44 = (q - 1) / (2 gamma_2) wraps to 0
  }
  std::int32_t r0 = r - r1 * 2 * kG2;
  // After the wrap r1 = 0 and r0 = r > (q - 1) / 2; subtracting q gives r - q = r0 - 1 as the
  // standard's special case prescribes (r - r0 = q - 1 there).
  r0 -= (((kQ - 1) / 2 - r0) >> 31) & kQ;
  return {r1, r0};
}

// Algorithms 37 and 38.
template <std::int32_t kG2 = kGamma2>
constexpr std::int32_t HighBits(std::int32_t r) {
  return Decompose<kG2>(r).hi;
}
template <std::int32_t kG2 = kGamma2>
constexpr std::int32_t LowBits(std::int32_t r) {
  return Decompose<kG2>(r).lo;
}

// Algorithm 39 with its arguments already combined: 1 when HighBits(r) != HighBits(r_plus_z), for
// r, r_plus_z in [0, q); branch-free.
constexpr std::int32_t MakeHint(std::int32_t r, std::int32_t r_plus_z) {
  const std::int32_t diff = HighBits(r) ^ HighBits(r_plus_z);
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(diff | -diff) >> 31);
}

// Algorithm 40: the high bits of r adjusted by the hint h in {0, 1}, mod m = (q - 1) / (2 gamma_2).
// Branch-free, although in ML-DSA it only ever sees public values (verification).
template <std::int32_t kG2 = kGamma2>
constexpr std::int32_t UseHint(std::int32_t h, std::int32_t r) {
  constexpr std::int32_t kM = (kQ - 1) / (2 * kG2);
  const Split s = Decompose<kG2>(r);
  // r0 > 0: r1 + 1, else r1 - 1; both mod m, kept in [0, m) with a conditional add / subtract.
  const std::int32_t up = static_cast<std::int32_t>(GeMask(0, s.lo) ^ ~0u) & 1;  // r0 > 0
  std::int32_t v = s.hi + h * (2 * up - 1);
  v += (v >> 31) & kM;
  v -= static_cast<std::int32_t>(GeMask(v, kM)) & kM;
  return v;
}

// The worked example of CCTV's ML-DSA accumulated README, r = 6010000.
static_assert(Power2Round(6010000).hi == 734 && Power2Round(6010000).lo == -2928);
static_assert(Decompose<(kQ - 1) / 88>(6010000).hi == 32 &&
              LowBits<(kQ - 1) / 88>(6010000) == -84848);
static_assert(UseHint<(kQ - 1) / 88>(1, 6010000) == 31);
static_assert(Decompose<kGamma2>(6010000).hi == 11 && LowBits(6010000) == 248464);
static_assert(UseHint(1, 6010000) == 12 && UseHint(0, 6010000) == 11);
// The wrap-around case: r = q - 1 has r - r0 = q - 1, so r1 = 0 and r0 = -1.
static_assert(HighBits(kQ - 1) == 0 && LowBits(kQ - 1) == -1);

}  // namespace veil::crypto::mldsa
