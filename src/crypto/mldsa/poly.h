// Polynomials of R_q = Z_q[X]/(X^256 + 1), the ring of ML-DSA (FIPS 204 sec. 2.3), and the
// coefficient-wise operations on them.
//
// A Poly is 256 int32 coefficients. Which representative a coefficient holds depends on where it is
// in the computation (an NTT output, a Montgomery product, a centred value); each function states
// what it accepts and returns. Every operation here is branch-free and indexes memory only by
// public loop counters, so all of them are safe on secret polynomials.
//
// Thread safety: pure functions on caller-owned values.
#pragma once

#include <cstdint>

#include "ntt.h"
#include "params.h"

namespace veil::crypto::mldsa {

struct Poly {
  alignas(64) Coeffs c;
};

// r = a + b and r = a - b, coefficient-wise, without reduction.
void PolyAdd(Poly& r, const Poly& a, const Poly& b);
void PolySub(Poly& r, const Poly& a, const Poly& b);

// r = a o b * 2^-32 (MultiplyNTT, FIPS 204 Algorithm 45, in Montgomery form), for |a_i * b_i| <
// 2^31 q; output |r_i| < q.
void PolyPointwiseMontgomery(Poly& r, const Poly& a, const Poly& b);

void PolyNtt(Poly& a);           // Algorithm 41; see Ntt()
void PolyInvNttToMont(Poly& a);  // Algorithm 42; see InvNttToMont()

// Reduce32 / CAddQ / Freeze on every coefficient (reduce.h).
void PolyReduce32(Poly& a);
void PolyCAddQ(Poly& a);
void PolyFreeze(Poly& a);

// a_i * 2^d, for t1 in [0, 2^10): the t1 * 2^d of FIPS 204 Algorithm 8, line 9.
void PolyShiftLeftD(Poly& a);

// All ones when some centred coefficient has |a_i| >= bound, else 0: the test ||a||_inf >= bound
// of FIPS 204 Algorithm 7, lines 23 and 28, computed without a branch. |a_i| < 2^30.
std::uint32_t PolyNormAtLeast(const Poly& a, std::int32_t bound);

}  // namespace veil::crypto::mldsa
