// The number-theoretic transform of ML-DSA (FIPS 204 sec. 7.5, Algorithms 41 and 42).
//
// Z_q[X]/(X^256 + 1) splits completely mod q, so NTT maps a polynomial to its 256 evaluations at
// the odd powers of zeta = 1753, and multiplication becomes coefficient-wise (MultiplyNTT,
// Algorithm 45). The twiddle factors zeta^BitRev8(m) are computed at compile time, in Montgomery
// form (times 2^32 mod q), so each butterfly costs one Montgomery reduction. Neither direction
// reduces after additions (lazy reduction); the bounds are stated per function. No branch or
// table index depends on the coefficients, so both are safe on secrets.
//
// Thread safety: pure functions on caller-owned arrays.
#pragma once

#include <array>
#include <cstdint>

#include "params.h"

namespace veil::crypto::mldsa {

using Coeffs = std::array<std::int32_t, kN>;

// In place. Input |a_i| < q (any representative); output |a_i| < 9q, congruent to the NTT of the
// input (Algorithm 41).
void Ntt(Coeffs& a);

// In place: the inverse NTT times 2^32 (Algorithm 42 and a Montgomery factor that cancels the
// 2^-32 of a preceding Montgomery product). Input |a_i| < q; output |a_i| < q.
void InvNttToMont(Coeffs& a);

}  // namespace veil::crypto::mldsa
