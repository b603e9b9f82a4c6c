// Arithmetic in the field GF(2^255 - 19), constant time, five 51-bit limbs in 64-bit words
// (radix 2^51), products in unsigned __int128.
//
// It sits in crypto/ rather than in the group floor ec/ because two primitives here need it
// (X25519's fixed-base path maps an Edwards point to its Montgomery u-coordinate, x25519.cc) and a
// floor may not call up; ec/ builds ristretto255 on it. docs/notes/field25519.md gives the limb
// bounds each function assumes and guarantees; in short, with "loose" meaning every limb < 2^54:
//   - Mul, Square, Pow2k, MulSmall, Sub, Neg, Reduce take loose inputs and return limbs < 2^52;
//   - Add returns the limb-wise sum with no carry, so the sum of two such results is loose and
//     sums of up to 4 such results may be multiplied;
//   - FromBytes reads 255 bits (the top bit of byte 31 is ignored) and accepts values >= p, which
//     callers that need canonical input detect by re-encoding (ToBytes is always canonical).
// No function branches on, or indexes memory by, a field value; the conditional operations take
// a 0/1 choice that is only ever used as an all-ones/all-zeros mask.
//
// Thread safety: functions on caller-owned values.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace veil::crypto {

struct Fe25519 {
  std::array<std::uint64_t, 5> v;
};

namespace fe25519_detail {
inline constexpr std::uint64_t kMask51 = (std::uint64_t{1} << 51) - 1;
// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
__extension__ typedef unsigned __int128 U128;  // NOLINT(modernize-use-using)

inline U128 M(std::uint64_t a, std::uint64_t b) { return static_cast<U128>(a) * b; }

// Carries a 5-limb product accumulator down to limbs < 2^51 + 2^13 (the top carry folds into limb
// 0 times 19, since 2^255 = 19 mod p). Each c_i < 2^115 and c4 < 2^111, as products of loose limbs
// are (docs/notes/field25519.md).
[[gnu::always_inline]] inline Fe25519 CarryWide(U128 c0, U128 c1, U128 c2, U128 c3, U128 c4) {
  Fe25519 r;
  c1 += static_cast<std::uint64_t>(c0 >> 51);
  r.v[0] = static_cast<std::uint64_t>(c0) & kMask51;
  c2 += static_cast<std::uint64_t>(c1 >> 51);
  r.v[1] = static_cast<std::uint64_t>(c1) & kMask51;
  c3 += static_cast<std::uint64_t>(c2 >> 51);
  r.v[2] = static_cast<std::uint64_t>(c2) & kMask51;
  c4 += static_cast<std::uint64_t>(c3 >> 51);
  r.v[3] = static_cast<std::uint64_t>(c3) & kMask51;
  const auto carry = static_cast<std::uint64_t>(c4 >> 51);
  r.v[4] = static_cast<std::uint64_t>(c4) & kMask51;
  r.v[0] += carry * 19;
  r.v[1] += r.v[0] >> 51;
  r.v[0] &= kMask51;
  return r;
}
}  // namespace fe25519_detail

inline constexpr Fe25519 kFeZero{{0, 0, 0, 0, 0}};
inline constexpr Fe25519 kFeOne{{1, 0, 0, 0, 0}};

// Carries every limb to < 2^51 + 2^18 (the value is unchanged mod p).
[[gnu::always_inline]] inline Fe25519 FeReduce(const Fe25519& a) {
  using fe25519_detail::kMask51;
  Fe25519 r;
  const std::uint64_t c0 = a.v[0] >> 51, c1 = a.v[1] >> 51, c2 = a.v[2] >> 51, c3 = a.v[3] >> 51,
                      c4 = a.v[4] >> 51;
  r.v[0] = (a.v[0] & kMask51) + c4 * 19;
  r.v[1] = (a.v[1] & kMask51) + c0;
  r.v[2] = (a.v[2] & kMask51) + c1;
  r.v[3] = (a.v[3] & kMask51) + c2;
  r.v[4] = (a.v[4] & kMask51) + c3;
  return r;
}

[[gnu::always_inline]] inline Fe25519 FeAdd(const Fe25519& a, const Fe25519& b) {
  return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3], a.v[4] + b.v[4]}};
}

// a - b for loose a and b: adds 16p (limbs 2^55 - 304, 2^55 - 16, ...) so no limb goes negative.
[[gnu::always_inline]] inline Fe25519 FeSub(const Fe25519& a, const Fe25519& b) {
  constexpr std::uint64_t k16P0 = 36028797018963664ULL;  // 16 * (2^51 - 19)
  constexpr std::uint64_t k16Pi = 36028797018963952ULL;  // 16 * (2^51 - 1)
  return FeReduce({{a.v[0] + k16P0 - b.v[0], a.v[1] + k16Pi - b.v[1], a.v[2] + k16Pi - b.v[2],
                    a.v[3] + k16Pi - b.v[3], a.v[4] + k16Pi - b.v[4]}});
}

inline Fe25519 FeNeg(const Fe25519& a) { return FeSub(kFeZero, a); }

[[gnu::always_inline]] inline Fe25519 FeMul(const Fe25519& a, const Fe25519& b) {
  using fe25519_detail::M;
  const std::uint64_t b1 = b.v[1] * 19, b2 = b.v[2] * 19, b3 = b.v[3] * 19, b4 = b.v[4] * 19;
  const auto c0 = M(a.v[0], b.v[0]) + M(a.v[4], b1) + M(a.v[3], b2) + M(a.v[2], b3) + M(a.v[1], b4);
  const auto c1 =
      M(a.v[1], b.v[0]) + M(a.v[0], b.v[1]) + M(a.v[4], b2) + M(a.v[3], b3) + M(a.v[2], b4);
  const auto c2 =
      M(a.v[2], b.v[0]) + M(a.v[1], b.v[1]) + M(a.v[0], b.v[2]) + M(a.v[4], b3) + M(a.v[3], b4);
  const auto c3 =
      M(a.v[3], b.v[0]) + M(a.v[2], b.v[1]) + M(a.v[1], b.v[2]) + M(a.v[0], b.v[3]) + M(a.v[4], b4);
  const auto c4 = M(a.v[4], b.v[0]) + M(a.v[3], b.v[1]) + M(a.v[2], b.v[2]) + M(a.v[1], b.v[3]) +
                  M(a.v[0], b.v[4]);
  return fe25519_detail::CarryWide(c0, c1, c2, c3, c4);
}

[[gnu::always_inline]] inline Fe25519 FeSquare(const Fe25519& a) {
  using fe25519_detail::M;
  const std::uint64_t a0_2 = a.v[0] * 2, a1_2 = a.v[1] * 2, a3_19 = a.v[3] * 19,
                      a4_19 = a.v[4] * 19;
  const auto c0 = M(a.v[0], a.v[0]) + M(a1_2, a4_19) + M(a.v[2] * 2, a3_19);
  const auto c1 = M(a0_2, a.v[1]) + M(a.v[2] * 2, a4_19) + M(a.v[3], a3_19);
  const auto c2 = M(a0_2, a.v[2]) + M(a.v[1], a.v[1]) + M(a.v[3] * 2, a4_19);
  const auto c3 = M(a0_2, a.v[3]) + M(a1_2, a.v[2]) + M(a.v[4], a4_19);
  const auto c4 = M(a0_2, a.v[4]) + M(a1_2, a.v[3]) + M(a.v[2], a.v[2]);
  return fe25519_detail::CarryWide(c0, c1, c2, c3, c4);
}

// a^(2^k), k >= 1.
inline Fe25519 FePow2k(Fe25519 a, int k) {
  for (int i = 0; i < k; ++i) a = FeSquare(a);
  return a;
}

// Multiplication by a small constant c < 2^13 (e.g. the curve constant 121666).
inline Fe25519 FeMulSmall(const Fe25519& a, std::uint32_t c) {
  using fe25519_detail::M;
  return fe25519_detail::CarryWide(M(a.v[0], c), M(a.v[1], c), M(a.v[2], c), M(a.v[3], c),
                                   M(a.v[4], c));
}

// r = choice ? b : a, choice in {0, 1}, without a branch.
inline Fe25519 FeSelect(const Fe25519& a, const Fe25519& b, std::uint64_t choice) {
  const std::uint64_t mask = 0 - choice;
  Fe25519 r;
  for (std::size_t i = 0; i < 5; ++i) r.v[i] = a.v[i] ^ (mask & (a.v[i] ^ b.v[i]));
  return r;
}

// Swaps a and b when choice is 1, without a branch.
inline void FeCondSwap(Fe25519& a, Fe25519& b, std::uint64_t choice) {
  const std::uint64_t mask = 0 - choice;
  for (std::size_t i = 0; i < 5; ++i) {
    const std::uint64_t t = mask & (a.v[i] ^ b.v[i]);
    a.v[i] ^= t;
    b.v[i] ^= t;
  }
}

// 255 little-endian bits; the top bit of byte 31 is ignored; values >= p are accepted.
Fe25519 FeFromBytes(std::span<const std::uint8_t, 32> in);
// The canonical encoding: the value reduced into [0, p), little-endian.
std::array<std::uint8_t, 32> FeToBytes(const Fe25519& a);

// 1 when a = 0 mod p, else 0.
std::uint64_t FeIsZero(const Fe25519& a);
// 1 when a and b are equal mod p, else 0.
std::uint64_t FeEqual(const Fe25519& a, const Fe25519& b);
// The low bit of the canonical encoding ("negative" in RFC 9496 sec. 4.2).
std::uint64_t FeIsNegative(const Fe25519& a);
// |a|: a when a is non-negative, -a when it is negative.
Fe25519 FeAbs(const Fe25519& a);
// a^-1 = a^(p-2); 0 maps to 0.
Fe25519 FeInvert(const Fe25519& a);
// Inverts every element of `values` in place with one inversion (Montgomery's trick: three
// multiplications an element). `scratch` holds at least values.size() elements. Constant time in
// the values; no element may be zero.
void FeInvertBatch(std::span<Fe25519> values, std::span<Fe25519> scratch);
// a^((p-5)/8) = a^(2^252 - 3), the core of a square root.
Fe25519 FePowP58(const Fe25519& a);

// SQRT_RATIO_M1 of RFC 9496 sec. 4.2: was_square = 1 and r = +sqrt(u/v) when u/v is a square
// (r = 0 when u = 0); otherwise was_square = 0 and r = +sqrt(SQRT_M1 * u/v). r is non-negative.
struct FeSqrtRatio {
  std::uint64_t was_square;
  Fe25519 r;
};
FeSqrtRatio FeSqrtRatioM1(const Fe25519& u, const Fe25519& v);

// sqrt(-1) mod p, the positive root (RFC 9496 sec. 4.1).
extern const Fe25519 kFeSqrtM1;

}  // namespace veil::crypto
