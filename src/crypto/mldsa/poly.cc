// Coefficient-wise operations on R_q; see poly.h.
#include "poly.h"

#include <cstddef>

#include "reduce.h"
#include "simd.h"

namespace veil::crypto::mldsa {

void PolyAdd(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = a.c[i] + b.c[i];
}

void PolySub(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; ++i) r.c[i] = a.c[i] - b.c[i];
}

#if VEIL_MLDSA_HAVE_AVX2
namespace {
VEIL_MLDSA_AVX2 void PointwiseAvx2(Poly& r, const Poly& a, const Poly& b) {
  for (std::size_t i = 0; i < kN; i += 8) {
    avx2::Store(&r.c[i], avx2::MontMul(avx2::Load(&a.c[i]), avx2::Load(&b.c[i])));
  }
}
}  // namespace
#endif

void PolyPointwiseMontgomery(Poly& r, const Poly& a, const Poly& b) {
#if VEIL_MLDSA_HAVE_AVX2
  if (UseAvx2()) return PointwiseAvx2(r, a, b);
#endif
  for (std::size_t i = 0; i < kN; ++i) {
    r.c[i] = MontgomeryReduce(static_cast<std::int64_t>(a.c[i]) * b.c[i]);
  }
}

void PolyNtt(Poly& a) { Ntt(a.c); }
void PolyInvNttToMont(Poly& a) { InvNttToMont(a.c); }

void PolyReduce32(Poly& a) {
  for (std::int32_t& x : a.c) x = Reduce32(x);
}

void PolyCAddQ(Poly& a) {
  for (std::int32_t& x : a.c) x = CAddQ(x);
}

void PolyFreeze(Poly& a) {
  for (std::int32_t& x : a.c) x = Freeze(x);
}

void PolyShiftLeftD(Poly& a) {
  for (std::int32_t& x : a.c) x *= (1 << kD);
}

std::uint32_t PolyNormAtLeast(const Poly& a, std::int32_t bound) {
  std::uint32_t over = 0;
  for (std::int32_t x : a.c) over |= GeMask(Abs(x), bound);
  return over;
}

}  // namespace veil::crypto::mldsa
