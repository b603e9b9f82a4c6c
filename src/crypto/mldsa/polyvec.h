// Vectors of polynomials (R_q^l, R_q^k) and the matrix A in R_q^{k x l} (FIPS 204 sec. 2.3), with
// the NTT-domain products of sec. 7.6: AddVectorNTT, ScalarVectorNTT and MatrixVectorNTT
// (Algorithms 46 to 48).
//
// MatrixVectorNtt sums the l products of a row as 64-bit integers and reduces once per coefficient
// (lazy reduction), instead of a Montgomery reduction per product. Everything here is branch-free
// and safe on secrets.
//
// Thread safety: pure functions on caller-owned values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "params.h"
#include "poly.h"
#include "reduce.h"

namespace veil::crypto::mldsa {

template <std::size_t M>
struct PolyVec {
  std::array<Poly, M> p;
};
using PolyVecL = PolyVec<kL>;
using PolyVecK = PolyVec<kK>;

// A_hat[r][s], in the NTT domain, coefficients in [0, q) (ExpandA, Algorithm 32).
struct MatrixA {
  std::array<std::array<Poly, kL>, kK> a;
};

template <std::size_t M>
void VecNtt(PolyVec<M>& v) {
  for (Poly& p : v.p) PolyNtt(p);
}

template <std::size_t M>
void VecInvNttToMont(PolyVec<M>& v) {
  for (Poly& p : v.p) PolyInvNttToMont(p);
}

template <std::size_t M>
void VecReduce32(PolyVec<M>& v) {
  for (Poly& p : v.p) PolyReduce32(p);
}

template <std::size_t M>
void VecFreeze(PolyVec<M>& v) {
  for (Poly& p : v.p) PolyFreeze(p);
}

// r_i = c o v_i * 2^-32 (ScalarVectorNTT, Algorithm 47).
template <std::size_t M>
void VecScalarMontgomery(PolyVec<M>& r, const Poly& c, const PolyVec<M>& v) {
  for (std::size_t i = 0; i < M; ++i) PolyPointwiseMontgomery(r.p[i], c, v.p[i]);
}

// See PolyNormAtLeast: all ones when some coefficient of some polynomial has |x| >= bound.
template <std::size_t M>
std::uint32_t VecNormAtLeast(const PolyVec<M>& v, std::int32_t bound) {
  std::uint32_t over = 0;
  for (const Poly& p : v.p) over |= PolyNormAtLeast(p, bound);
  return over;
}

// w = A o v * 2^-32 (MatrixVectorNTT, Algorithm 48), with sub_i = c o u_i * 2^-32 subtracted when
// given (the A z - c t1 2^d of verification). Each sum of l + 1 products must stay below 2^31 q
// in absolute value, which holds for |v_j|, |c|, |u| < 9q and A in [0, q); output |w_i| < q.
void MatrixVectorMontgomery(PolyVecK& w, const MatrixA& a, const PolyVecL& v);
void MatrixVectorMinusScalarMontgomery(PolyVecK& w, const MatrixA& a, const PolyVecL& v,
                                       const Poly& c, const PolyVecK& u);

}  // namespace veil::crypto::mldsa
