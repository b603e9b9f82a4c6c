// Coefficient-wise operations on polynomials (see poly.h).
#include "poly.h"

#include "ntt.h"
#include "reduce.h"

namespace veil::crypto::mlkem {

void PolyAdd(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = static_cast<std::int16_t>(a.c[i] + b.c[i]);
}

void PolySub(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = static_cast<std::int16_t>(a.c[i] - b.c[i]);
}

void PolyReduce(Poly& r) {
  for (auto& x : r.c) x = BarrettReduce(x);
}

void PolyToMont(Poly& r) {
  for (auto& x : r.c) x = FqMul(x, kMontR2ModQ);
}

void PolyMulCacheCompute(PolyMulCache& cache, const Poly& g_hat) {
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
