// Modular reduction mod q = 8380417 for ML-DSA: Montgomery reduction (FIPS 204 Algorithm 49,
// with R = 2^32), a Barrett-style reduction by a shift, and the conditional steps that bring a
// coefficient to its standard representative in [0, q) or its centred one, r mod+- q.
//
// All of it is branch-free and divides only by constants (as shifts), so it is safe on secret
// coefficients. Coefficients are int32; the comments give the input range each step accepts.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "params.h"

namespace veil::crypto::mldsa {

inline constexpr std::int32_t kQInv = 58728449;  // q^-1 mod 2^32
static_assert(static_cast<std::uint32_t>(kQ) * static_cast<std::uint32_t>(kQInv) == 1u);

// a * 2^-32 mod q for |a| < 2^31 * q; the result r satisfies |r| < q (FIPS 204 Algorithm 49).
constexpr std::int32_t MontgomeryReduce(std::int64_t a) {
  // t = a * q^-1 mod 2^32, as a signed 32-bit value; unsigned arithmetic keeps it well defined.
  const auto t =
      static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(kQInv));
  return static_cast<std::int32_t>((a - static_cast<std::int64_t>(t) * kQ) >> 32);
}

// A representative of a mod q in [-6283008, 6283008], for a <= 2^31 - 2^22 - 1.
constexpr std::int32_t Reduce32(std::int32_t a) {
  const std::int32_t t = (a + (1 << 22)) >> 23;
  return a - t * kQ;
}

// Adds q when a is negative: maps (-q, q) to [0, q).
constexpr std::int32_t CAddQ(std::int32_t a) { return a + ((a >> 31) & kQ); }

// The standard representative a mod q in [0, q), for a <= 2^31 - 2^22 - 1.
constexpr std::int32_t Freeze(std::int32_t a) { return CAddQ(Reduce32(a)); }

// For a in [0, q): the centred representative a mod+- q in [-(q-1)/2, (q-1)/2].
constexpr std::int32_t Centered(std::int32_t a) { return a - (((((kQ - 1) / 2) - a) >> 31) & kQ); }

// |a| without a branch, for a > INT32_MIN.
constexpr std::int32_t Abs(std::int32_t a) {
  const std::int32_t m = a >> 31;
  return (a ^ m) - m;
}

// All ones when a >= b, else 0, for a, b in [-2^30, 2^30].
constexpr std::uint32_t GeMask(std::int32_t a, std::int32_t b) {
  return ~static_cast<std::uint32_t>((a - b) >> 31);
}

static_assert(MontgomeryReduce(std::int64_t{5} << 32) == 5 &&
              MontgomeryReduce(-(std::int64_t{7} << 32)) == -7);
static_assert(Freeze(-1) == kQ - 1 && Freeze(kQ) == 0 && Freeze(2 * kQ + 5) == 5);
static_assert(Centered(kQ - 1) == -1 && Centered((kQ - 1) / 2) == (kQ - 1) / 2);
static_assert(Abs(-7) == 7 && GeMask(3, 3) == ~0u && GeMask(2, 3) == 0u);

}  // namespace veil::crypto::mldsa
