// Arithmetic modulo q = 3329 on signed 16-bit coefficients: Montgomery and Barrett reduction.
//
// Coefficients are int16 representatives of Z_q that are not always fully reduced; each function
// states the range it accepts and the range it returns, and the callers (ntt.cc, poly.cc) keep
// every intermediate inside int16 (docs/notes/mlkem.md, "Bounds"). Neither reduction divides:
// Montgomery reduction multiplies by q^-1 mod 2^16, Barrett by a fixed 2^26 / q approximation,
// and both shift, so the time is independent of the values (no division instruction, whose
// latency depends on its operands on many CPUs). The results are checked exhaustively in
// tests/crypto/mlkem768_test.cc.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "params.h"

namespace veil::crypto::mlkem {

inline constexpr std::int32_t kMontR = 1 << 16;    // R = 2^16
inline constexpr std::int16_t kQInv = -3327;       // q^-1 mod 2^16, as a signed value
inline constexpr std::int16_t kMontRModQ = 2285;   // R mod q
inline constexpr std::int16_t kMontR2ModQ = 1353;  // R^2 mod q: FqMul by it enters Montgomery form
static_assert((static_cast<std::int32_t>(kQInv) * kQ) % kMontR == 1 ||
              (static_cast<std::int32_t>(kQInv) * kQ) % kMontR == 1 - kMontR);
static_assert(kMontR % kQ == kMontRModQ);
static_assert((static_cast<std::int64_t>(kMontR) * kMontR) % kQ == kMontR2ModQ);

// For |a| < q * 2^15: returns r = a * 2^-16 mod q with |r| < q (|a| = q * 2^15 can give r = +-q).
constexpr std::int16_t MontgomeryReduce(std::int32_t a) {
  // t = a * q^-1 mod 2^16, so a - t * q is divisible by 2^16 (the low 16 bits cancel).
  const auto t = static_cast<std::int16_t>(static_cast<std::int16_t>(a) * kQInv);
  return static_cast<std::int16_t>((a - static_cast<std::int32_t>(t) * kQ) >> 16);
}

// a * b * 2^-16 mod q, |result| < q, for |a * b| < q * 2^15 (e.g. |a| < 2^15 and |b| < q).
constexpr std::int16_t FqMul(std::int16_t a, std::int16_t b) {
  return MontgomeryReduce(static_cast<std::int32_t>(a) * b);
}

// The high and low halves of the 32-bit product of two int16 values. Written this way, loops of
// them map onto the SIMD "multiply high" and "multiply low" instructions (pmulhw, pmullw) when the
// compiler vectorises.
constexpr std::int16_t MulHi(std::int16_t a, std::int16_t b) {
  return static_cast<std::int16_t>((static_cast<std::int32_t>(a) * b) >> 16);
}
constexpr std::int16_t MulLo(std::int16_t a, std::int16_t b) {
  return static_cast<std::int16_t>(static_cast<std::int32_t>(a) * b);
}

// b * zeta * 2^-16 mod q with zeta_qinv = zeta * q^-1 mod 2^16 precomputed: the same value as
// FqMul(b, zeta), in the high/low form. a * b - t * q (t = a b q^-1 mod 2^16) has zero low half,
// so its high half is exactly MulHi(a, b) - MulHi(t, q). Output |r| < q for any int16 b when
// |zeta| <= q/2.
constexpr std::int16_t FqMulPrecomputed(std::int16_t b, std::int16_t zeta, std::int16_t zeta_qinv) {
  return static_cast<std::int16_t>(MulHi(b, zeta) - MulHi(MulLo(b, zeta_qinv), kQ));
}

// For any int16 a: the centred representative of a mod q, in [-(q-1)/2, (q-1)/2].
// t = round(a / q) = floor((a * v + 2^25) / 2^26) with v = round(2^26 / q), computed as the high
// half of a * v rounded by a further shift (nested floors of integer shifts compose exactly), so a
// vectorised loop needs only 16-bit lanes.
constexpr std::int16_t BarrettReduce(std::int16_t a) {
  constexpr std::int16_t kV = ((1 << 26) + kQ / 2) / kQ;  // 20159
  const auto t = static_cast<std::int16_t>((MulHi(a, kV) + (1 << 9)) >> 10);
  return static_cast<std::int16_t>(a - t * kQ);
}

// For a in (-q, q): the representative in [0, q), by adding q when the sign bit is set (a mask, no
// branch).
constexpr std::int16_t AddQIfNegative(std::int16_t a) {
  return static_cast<std::int16_t>(a + ((a >> 15) & kQ));
}

}  // namespace veil::crypto::mlkem
