// Coefficient-wise operations on polynomials (see poly.h). With AVX2 (simd.h) each dispatches to
// its twin in avx2.h, which computes the same values.
#include "poly.h"

#include "avx2.h"
#include "ntt.h"
#include "reduce.h"
#include "simd.h"

namespace veil::crypto::mlkem {

void PolyAdd(Poly& r, const Poly& a, const Poly& b) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyAdd(r, a, b);
#endif
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = static_cast<std::int16_t>(a.c[i] + b.c[i]);
}

void PolySub(Poly& r, const Poly& a, const Poly& b) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolySub(r, a, b);
#endif
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = static_cast<std::int16_t>(a.c[i] - b.c[i]);
}

void PolyReduce(Poly& r) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyReduce(r);
#endif
  for (auto& x : r.c) x = BarrettReduce(x);
}

void PolyToMont(Poly& r) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyToMont(r);
#endif
  for (auto& x : r.c) x = FqMul(x, kMontR2ModQ);
}

void PolyMulCacheCompute(PolyMulCache& cache, const Poly& g_hat) {
#if VEIL_MLKEM_HAVE_AVX2
  if (UseAvx2()) return avx2::PolyMulCacheCompute(cache, g_hat);
#endif
  for (std::size_t i = 0; i < kN / 2; ++i) {
    const std::int16_t b0 = g_hat.c[2 * i];
    const std::int16_t b1 = g_hat.c[2 * i + 1];
    cache.g0[2 * i] = b0;
    cache.g0[2 * i + 1] = FqMul(b1, kGammas[i]);
    cache.g1[2 * i] = b1;
    cache.g1[2 * i + 1] = b0;
  }
}

}  // namespace veil::crypto::mlkem
