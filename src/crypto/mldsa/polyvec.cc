// Matrix-vector products in the NTT domain with lazy reduction; see polyvec.h.
#include "polyvec.h"

#include "simd.h"

namespace veil::crypto::mldsa {

#if VEIL_MLDSA_HAVE_AVX2
namespace {

// The 64-bit sums of the even and the odd lanes, kept apart until the one reduction.
struct Acc {
  __m256i even;
  __m256i odd;
};

VEIL_MLDSA_AVX2 inline void MulAdd(Acc& acc, __m256i x, __m256i y) {
  acc.even = _mm256_add_epi64(acc.even, _mm256_mul_epi32(x, y));
  acc.odd = _mm256_add_epi64(acc.odd,
                             _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)));
}

VEIL_MLDSA_AVX2 void MatrixVectorAvx2(PolyVecK& w, const MatrixA& a, const PolyVecL& v,
                                      const Poly* c, const PolyVecK* u) {
  for (std::size_t r = 0; r < kK; ++r) {
    for (std::size_t i = 0; i < kN; i += 8) {
      Acc acc = {_mm256_setzero_si256(), _mm256_setzero_si256()};
      if (c != nullptr) {  // public: which of the two products this is
        const __m256i neg_c = _mm256_sub_epi32(_mm256_setzero_si256(), avx2::Load(&c->c[i]));
        MulAdd(acc, neg_c, avx2::Load(&u->p[r].c[i]));
      }
      for (std::size_t s = 0; s < kL; ++s) {
        MulAdd(acc, avx2::Load(&a.a[r][s].c[i]), avx2::Load(&v.p[s].c[i]));
      }
      avx2::Store(&w.p[r].c[i], avx2::Combine(avx2::Reduce64(acc.even), avx2::Reduce64(acc.odd)));
    }
  }
}

}  // namespace
#endif

void MatrixVectorMontgomery(PolyVecK& w, const MatrixA& a, const PolyVecL& v) {
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) return MatrixVectorAvx2(w, a, v, nullptr, nullptr);
#endif
  for (std::size_t r = 0; r < kK; ++r) {
    const auto& row = a.a[r];
    for (std::size_t i = 0; i < kN; ++i) {
      std::int64_t acc = 0;
      for (std::size_t s = 0; s < kL; ++s) {
        acc += static_cast<std::int64_t>(row[s].c[i]) * v.p[s].c[i];
      }
      w.p[r].c[i] = MontgomeryReduce(acc);
    }
  }
}

void MatrixVectorMinusScalarMontgomery(PolyVecK& w, const MatrixA& a, const PolyVecL& v,
                                       const Poly& c, const PolyVecK& u) {
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) return MatrixVectorAvx2(w, a, v, &c, &u);
#endif
  for (std::size_t r = 0; r < kK; ++r) {
    const auto& row = a.a[r];
    for (std::size_t i = 0; i < kN; ++i) {
      std::int64_t acc = -static_cast<std::int64_t>(c.c[i]) * u.p[r].c[i];
      for (std::size_t s = 0; s < kL; ++s) {
        acc += static_cast<std::int64_t>(row[s].c[i]) * v.p[s].c[i];
      }
      w.p[r].c[i] = MontgomeryReduce(acc);
    }
  }
}

}  // namespace veil::crypto::mldsa
