// Polynomials of R_q = Z_q[X]/(X^256 + 1) and of its NTT domain T_q (FIPS 203 sec. 2.4.4, 4.3).
//
// A Poly holds 256 signed 16-bit coefficients, either of a polynomial f or of its NTT
// representation f_hat; which one is the caller's to know, as in the standard's algorithms. The
// coefficients are representatives modulo q that are kept small but not always reduced; every
// function states what it accepts and returns (docs/notes/mlkem.md, "Bounds").
//
// Thread safety: functions on caller-owned values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "params.h"
#include "veil/crypto/secret.h"

namespace veil::crypto::mlkem {

struct alignas(32) Poly {
  std::array<std::int16_t, kN> c;
};

// Wipes a value on scope exit: the polynomials derived from s, e, y, r and m are secrets.
template <class T>
struct Wiped {
  T v;
  Wiped() = default;
  Wiped(const Wiped&) = delete;
  Wiped& operator=(const Wiped&) = delete;
  ~Wiped() { SecureWipe(&v, sizeof v); }
};

// For the NTT-domain product h_hat = f_hat x g_hat (FIPS 203 Algorithms 11, 12), g_hat's part
// prepared once and reused for every f_hat it is multiplied with (a matrix row, t_hat). Pair i of
// the product is c0 = a0 b0 + a1 (b1 gamma_i), c1 = a0 b1 + a1 b0 with gamma_i =
// zeta^(2 BitRev7(i) + 1); laid out as g0 = (b0, b1 gamma_i) and g1 = (b1, b0) per pair, each is a
// dot product of the pair (a0, a1) with a pair of the cache, which compilers vectorise well.
struct alignas(32) PolyMulCache {
  std::array<std::int16_t, kN> g0;
  std::array<std::int16_t, kN> g1;
};

// r = a + b and r = a - b, coefficient-wise, no reduction (the caller keeps the sums in int16).
void PolyAdd(Poly& r, const Poly& a, const Poly& b);
void PolySub(Poly& r, const Poly& a, const Poly& b);
// Every coefficient to its centred representative in [-(q-1)/2, (q-1)/2] (Barrett).
void PolyReduce(Poly& r);
// Multiplies by R = 2^16 (enters Montgomery form); output |c| < q.
void PolyToMont(Poly& r);

// The cache of g_hat: b1 gamma_i by a Montgomery multiplication (|b1 gamma_i| < q for any int16
// b1), and the coefficients of g_hat themselves.
void PolyMulCacheCompute(PolyMulCache& cache, const Poly& g_hat);

}  // namespace veil::crypto::mlkem
