// Vectors and matrices of polynomials (FIPS 203 sec. 2.4.6): the k-vectors s, e, t, y, u and the
// k x k matrix A, with the operations K-PKE needs, each a loop over poly.h / ntt.h / packing.h.
//
// Thread safety: functions on caller-owned values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "ntt.h"
#include "packing.h"
#include "poly.h"

namespace veil::crypto::mlkem {

template <std::size_t kK>
using PolyVec = std::array<Poly, kK>;
template <std::size_t kK>
using PolyVecMulCache = std::array<PolyMulCache, kK>;
// A[i][j] is row i, column j.
template <std::size_t kK>
using PolyMatrix = std::array<PolyVec<kK>, kK>;

// NTT of each entry followed by a Barrett reduction, so the result is centred (|x| <= q/2) and can
// be the right operand of BaseMulAccumulate.
template <std::size_t kK>
void PolyVecNtt(PolyVec<kK>& v) {
  for (auto& p : v) {
    Ntt(p);
    PolyReduce(p);
  }
}

template <std::size_t kK>
void PolyVecInvNttToMont(PolyVec<kK>& v) {
  for (auto& p : v) InvNttToMont(p);
}

template <std::size_t kK>
void PolyVecReduce(PolyVec<kK>& v) {
  for (auto& p : v) PolyReduce(p);
}

template <std::size_t kK>
void PolyVecAdd(PolyVec<kK>& r, const PolyVec<kK>& a, const PolyVec<kK>& b) {
  for (std::size_t i = 0; i < kK; ++i) PolyAdd(r[i], a[i], b[i]);
}

template <std::size_t kK>
void PolyVecMulCacheCompute(PolyVecMulCache<kK>& cache, const PolyVec<kK>& v) {
  for (std::size_t i = 0; i < kK; ++i) PolyMulCacheCompute(cache[i], v[i]);
}

// r = a^T o b * R^-1 = sum_i a[i] x b[i] * R^-1 in T_q, b given by its multiplication cache.
template <std::size_t kK>
void PolyVecInnerProduct(Poly& r, const PolyVec<kK>& a, const PolyVecMulCache<kK>& b_cache) {
  static_assert(kK <= 4, "the 32-bit accumulator of BaseMulAccumulate holds at most 4 products");
  BaseMulAccumulate(r, a.data(), b_cache.data(), kK);
}

// ByteEncode_12 of each entry, for entries with |x| < q.
template <std::size_t kK>
void PolyVecToBytes(std::span<std::uint8_t, kPolyBytes * kK> out, const PolyVec<kK>& v) {
  for (std::size_t i = 0; i < kK; ++i) {
    PolyToBytes(out.subspan(i * kPolyBytes).template first<kPolyBytes>(), v[i]);
  }
}

template <std::size_t kK>
void PolyVecFromBytes(PolyVec<kK>& v, std::span<const std::uint8_t, kPolyBytes * kK> in) {
  for (std::size_t i = 0; i < kK; ++i) {
    PolyFromBytes(v[i], in.subspan(i * kPolyBytes).template first<kPolyBytes>());
  }
}

template <unsigned kD, std::size_t kK>
void PolyVecCompress(std::span<std::uint8_t, 32 * kD * kK> out, const PolyVec<kK>& v) {
  for (std::size_t i = 0; i < kK; ++i) {
    PolyCompress<kD>(out.subspan(i * 32 * kD).template first<32 * kD>(), v[i]);
  }
}

template <unsigned kD, std::size_t kK>
void PolyVecDecompress(PolyVec<kK>& v, std::span<const std::uint8_t, 32 * kD * kK> in) {
  for (std::size_t i = 0; i < kK; ++i) {
    PolyDecompress<kD>(v[i], in.subspan(i * 32 * kD).template first<32 * kD>());
  }
}

}  // namespace veil::crypto::mlkem
